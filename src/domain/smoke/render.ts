/** The human report: a table (NAME, RESULT, LATENCY, DETAIL), the contract problems, a summary line. */
import type { CheckResult, SmokeReport } from './types.js';

export interface Paint {
  pass(s: string): string;
  fail(s: string): string;
  skip(s: string): string;
}

/** Rows for the table: the RESULT cell carries its paint, applied after the table sanitizes its text. */
export function tableRows(
  checks: CheckResult[],
  paint: Paint,
): Array<Array<string | { text: string; style: (s: string) => string }>> {
  return checks.map((c) => [
    c.name,
    { text: c.status.toUpperCase(), style: paint[c.status] },
    c.latencyMs === null ? '-' : `${c.latencyMs} ms${c.rateWaitMs ? ` (+${seconds(c.rateWaitMs)} budget wait)` : ''}`,
    c.detail,
  ]);
}

/** Every contract problem, one line each, so the table's DETAIL column stays one line per check. */
export function problemLines(checks: CheckResult[]): string[] {
  return checks.flatMap((c) => (c.problems ?? []).map((p) => `  ${c.name}: ${p}`));
}

export function summaryLine(report: SmokeReport): string {
  const count = (s: CheckResult['status']) => report.checks.filter((c) => c.status === s).length;
  const verdict = report.ok ? 'smoke passed' : report.unreachable ? 'smoke FAILED (API unreachable)' : 'smoke FAILED';
  // Tries that never connected used none of the API's budget: counted apart, from the HTTP layer's record.
  const notConnected = report.tries - report.requests;
  const more = notConnected > 0 ? `; ${notConnected} more tr${notConnected === 1 ? 'y' : 'ies'} could not connect` : '';
  const waited = report.rateWaitMs
    ? `; waited ${seconds(report.rateWaitMs)} for the key's rate budget (not counted as latency)`
    : '';
  return `${verdict}: ${count('pass')} passed, ${count('fail')} failed, ${count('skip')} skipped; ${report.requests} request${report.requests === 1 ? '' : 's'} used (the API allows 30 per minute)${more}${waited}`;
}

/** `0.4 s`, `12.0 s`: a wait for the budget, in the unit it is felt in. */
export function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}
