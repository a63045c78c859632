/**
 * What a bulk run will cost before it starts: requests, and the least time the rate limit
 * allows for them (spec "Limits": 30 requests per rolling minute per API key).
 */

/** Requests of one bulk run: per valid row, plus once for the whole file. */
export interface RequestCost {
  perRow: number;
  perFile: number;
}

/**
 * Route: the spec's routed flow is four requests, but its first (`GET /v1/triggers`) is needed
 * once for the whole file (it is what the rows are validated against), so a row costs
 * three: fire, slots, book. Recoveries (SLOT_TAKEN, CONFLICT, later pages) add more.
 */
export const ROUTE_COST: RequestCost = { perRow: 3, perFile: 1 };
/** Reschedule: one PATCH per row (finding a meeting by email is not a request). */
export const RESCHEDULE_COST: RequestCost = { perRow: 1, perFile: 0 };

export interface PlanInput {
  /** Rows read (valid and invalid). */
  rows: number;
  invalid: number;
  requestsPerRow: number;
  /** Requests made once for the whole run (route: the triggers list). */
  requestsPerFile?: number;
  ratePerMinute: number;
  /** How long ago (ms) the requests still in the key's window were sent (other runs, other processes). */
  inUseMsAgo?: number[];
}

export interface PlanSummary {
  rows: number;
  valid: number;
  invalid: number;
  requests: number;
  minDurationSeconds: number;
}

export function planSummary(input: PlanInput): PlanSummary {
  const valid = Math.max(0, input.rows - input.invalid);
  const requests = (input.requestsPerFile ?? 0) + valid * input.requestsPerRow;
  return {
    rows: input.rows,
    valid,
    invalid: input.invalid,
    requests,
    minDurationSeconds: minDurationSeconds(requests, input.ratePerMinute, input.inUseMsAgo),
  };
}

/**
 * The least time `requests` take under a rolling one-minute window of `ratePerMinute`. With an
 * unused budget the first `ratePerMinute` go at once, each further batch a minute later: 30
 * requests need 0 s and 160 need 5 min (not 160/30 min = 5 min 20 s). Requests already in the
 * window (`inUseMsAgo`: sent that long ago, by other runs or processes) take their room until
 * they leave it, so a spent budget never reads "at least 0 s". A lower bound: response times
 * and recoveries only add to it.
 */
export function minDurationSeconds(requests: number, ratePerMinute: number, inUseMsAgo: number[] = []): number {
  if (requests <= 0 || ratePerMinute <= 0) return 0;
  const WINDOW = 60_000;
  const inWindow = inUseMsAgo.filter((a) => a >= 0 && a < WINDOW);
  if (inWindow.length === 0) return Math.floor((requests - 1) / ratePerMinute) * 60;
  // Send times (ms from now), earlier ones negative; each request goes when the window has room.
  const sent = inWindow.map((a) => -a).sort((a, b) => a - b);
  let t = 0;
  for (let i = 0; i < requests; i++) {
    const blocker = sent[sent.length - ratePerMinute];
    if (blocker !== undefined && t < blocker + WINDOW) t = blocker + WINDOW;
    sent.push(t);
  }
  return Math.ceil(t / 1000);
}

/** `40 rows (2 invalid), 115 requests, at least 3 min at 30 requests/min`. */
export function formatPlan(summary: PlanSummary, ratePerMinute: number): string {
  const rows = `${summary.rows} ${summary.rows === 1 ? 'row' : 'rows'}${summary.invalid > 0 ? ` (${summary.invalid} invalid)` : ''}`;
  const requests = `${summary.requests} ${summary.requests === 1 ? 'request' : 'requests'}`;
  if (ratePerMinute <= 0) return `${rows}, ${requests} (the shared rate budget is off)`;
  return `${rows}, ${requests}, at least ${formatDuration(summary.minDurationSeconds)} at ${ratePerMinute} requests/min`;
}

/** `0 s`, `45 s`, `5 min`, `5 min 20 s`, `1 h 5 min`. */
export function formatDuration(seconds: number): string {
  const total = Math.max(0, Math.round(seconds));
  const h = Math.floor(total / 3600);
  const min = Math.floor((total % 3600) / 60);
  const s = total % 60;
  if (h > 0) return min > 0 ? `${h} h ${min} min` : `${h} h`;
  if (min > 0) return s > 0 ? `${min} min ${s} s` : `${min} min`;
  return `${s} s`;
}
