import type { RouteResult } from '../../domain/route/types.js';

/** A finished `schedctl route`: what the domain answered plus what only the command knows. */
export interface RouteRun {
  result: RouteResult;
  /** API requests sent by this run (a retried request counts once). */
  requests: number;
  zone: string;
  /** The lead's zone (--lead-tz), when given: the meeting view adds the lead's wall time. */
  leadZone?: string | undefined;
  commandLine: string;
}
