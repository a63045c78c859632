/** The shape of a smoke run: the JSON document printed and what the JUnit report is built from. */
import type { FireInputNames } from '../triggers.js';

export type CheckStatus = 'pass' | 'fail' | 'skip';

export interface CheckResult {
  name: string;
  status: CheckStatus;
  /**
   * Time spent in this check's requests (including the HTTP layer's retries), not counting any
   * wait for the rate budget; null when skipped. The --max-latency budget judges this.
   */
  latencyMs: number | null;
  /** Time this check's requests waited for the key's rate budget (or a 429's Retry-After): never a failure. */
  rateWaitMs?: number;
  detail: string;
  /** Contract problems, one `<json path>: <reason>` each. */
  problems?: string[];
}

export interface SmokeReport {
  ok: boolean;
  /** Requests sent, retries included (the API allows 30 per minute per key): tries written to a connection. */
  requests: number;
  /** Every try the HTTP layer made, including those that never connected (refused, no such host): at least `requests`. */
  tries: number;
  /** Present (true) when the API could not be reached at the first check: no check ran, the key was not checked. */
  unreachable?: true;
  /** Total time waited for the key's rate budget: the wait before the checks started, and during them. */
  rateWaitMs: number;
  checks: CheckResult[];
  /** The meeting the booking check created, so a CI job can clean it up. */
  meetingId?: string;
}

/** A validated request, ready to run (the CLI's comes from run/smoke/options.ts). */
export interface SmokeInput {
  event?: string;
  trigger?: { ref: string; email: string; fields: Record<string, string> };
  book: boolean;
  /** The lead's email for the booking check (the trigger's email when routed). */
  email?: string;
  maxLatencyMs?: number;
  /** Time already waited for the rate budget before the checks started (counted in the report's rateWaitMs). */
  budgetWaitMs?: number;
}

/** Requests a run of these inputs sends (retries aside): 4 reads, the fire, the routed link's slots and the booking. */
export function requestsNeeded(input: Pick<SmokeInput, 'trigger' | 'book'>): number {
  return 4 + (input.trigger ? 1 : 0) + (input.book ? (input.trigger ? 2 : 1) : 0);
}

/**
 * How the caller names the run's inputs, for the texts that say which one to give (a skipped
 * check, the latency budget) and for the fire's answers: the CLI names its flags.
 */
export interface SmokeInputNames extends FireInputNames {
  event: string;
  trigger: string;
  /** The form answers, one by one. */
  field: string;
  book: string;
  maxLatency: string;
}
