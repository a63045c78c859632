/** How a check's answer turns into a verdict: auth from the first answers, the latency budget, outcome wording. */
import type { TriggerFireResult } from '../../api/schemas.js';
import { CliError } from '../../errors.js';
import type { ProbeResult } from './probe.js';
import type { CheckResult } from './types.js';

export interface AuthVerdict {
  check: CheckResult;
  /** Why later checks are skipped: the key was refused or the API is unreachable. */
  stop?: string;
  /** The answer proves nothing about the key (a 5xx, a gateway page, a timeout). */
  undecided?: boolean;
}

/** Why the checks after auth are skipped when the API cannot be reached. */
export const API_UNREACHABLE = 'the API is unreachable';

export function judgeAuth(r: ProbeResult<unknown>): AuthVerdict {
  const name = 'auth';
  if (r.ok || r.problems)
    return { check: { name, status: 'pass', latencyMs: r.latencyMs, detail: 'the API key is accepted' } };
  if (r.status === 401) {
    return {
      check: { name, status: 'fail', latencyMs: r.latencyMs, detail: `the API key is refused: ${r.detail}` },
      stop: 'the API key is refused',
    };
  }
  if (r.unreachable)
    return {
      // Not a verdict on the key: it never reached the API.
      check: {
        name,
        status: 'fail',
        latencyMs: r.latencyMs,
        detail: `API unreachable, the key was not checked: ${r.detail}`,
      },
      stop: API_UNREACHABLE,
    };
  if (r.status !== undefined && r.status < 500) {
    return {
      check: {
        name,
        status: 'pass',
        latencyMs: r.latencyMs,
        detail: `the API key is accepted (the request answered HTTP ${r.status})`,
      },
    };
  }
  return { check: { name, status: 'fail', latencyMs: r.latencyMs, detail: r.detail }, undecided: true };
}

/** A passed check slower than the budget fails; `budgetName` is the budget's input as the caller names it. */
export function overBudget(check: CheckResult, maxMs: number | undefined, budgetName: string): CheckResult {
  if (maxMs === undefined || check.status !== 'pass' || check.latencyMs === null || check.latencyMs <= maxMs)
    return check;
  return {
    ...check,
    status: 'fail',
    detail: `took ${check.latencyMs} ms, over the ${budgetName} budget of ${maxMs} ms (${check.detail})`,
  };
}

export function describeOutcome(triggerName: string, result: TriggerFireResult): string {
  const o = result.outcome as { type: string; schedulingLinkId?: string; url?: string };
  const what =
    o.type === 'scheduler'
      ? `scheduler, link ${o.schedulingLinkId}`
      : o.type === 'redirect'
        ? `redirect to ${o.url}`
        : o.type === 'none'
          ? 'none (no meeting offered)'
          : o.type;
  return `fired "${triggerName}": outcome ${what}; execution ${result.executionId}`;
}

export function cliMessage(error: unknown): string {
  if (error instanceof CliError)
    return `${error.message}${error.details?.length ? ` [${error.details.join('; ')}]` : ''}`;
  return error instanceof Error ? error.message : String(error);
}
