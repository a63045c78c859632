/**
 * Whose clock says whether a meeting is over (shared/ledger-rules.md, "Whose clock"): both. Every
 * answer of the API carries its time (the Date header); neither a local clock that is wrong nor a
 * server whose Date is wrong (by mistake or on purpose: +400 days, year 9999) may make a booked
 * lead look free. Pure: unit-tested and mutation-tested.
 */

/** A local clock further than this from the server's is reported (once per command). */
export const SKEW_REPORT_MS = 60_000;

export interface ClockReading {
  /** This machine's clock. */
  local: Date;
  /** The server's clock minus ours, from the latest answer of this API in this command; none yet: undefined. */
  skewMs?: number | undefined;
  /** The latest server time on record for this API (any earlier command), in ms since the epoch. */
  lastServerMs?: number | undefined;
}

/**
 * The "now" the ledger judges meetings by: a meeting is over only when both this machine's clock
 * and the server's say so, so the earlier of the two. The server's time is this clock plus the
 * skew measured in this command or, before it is known, the last server time on record (in the
 * past, so it can only keep a meeting upcoming longer). A server ahead of this clock is outvoted
 * by it, as a local clock ahead of the server is by the server: a lead waits, at worst, for the
 * slower clock. With neither server reading: this clock.
 */
export function ledgerNow(r: ClockReading): Date {
  const local = r.local.getTime();
  const server = finite(r.skewMs) ? local + r.skewMs : r.lastServerMs;
  return new Date(finite(server) ? Math.min(local, server) : local);
}

const finite = (n: number | undefined): n is number => Number.isFinite(n);

/** Whether a skew is worth telling: more than a minute either way. */
export const skewWorthReporting = (skewMs: number): boolean => Math.abs(skewMs) > SKEW_REPORT_MS;

/** `2 d 3 h 4 min`, `5 min 6 s`, `59 s`: a duration in its two largest units. */
export function formatDuration(ms: number): string {
  const total = Math.round(Math.abs(ms) / 1000);
  const units: [string, number][] = [
    ['d', Math.floor(total / 86_400)],
    ['h', Math.floor(total / 3600) % 24],
    ['min', Math.floor(total / 60) % 60],
    ['s', total % 60],
  ];
  const first = units.findIndex(([, n]) => n > 0);
  if (first === -1) return '0 s';
  return units
    .slice(first, first + 2)
    .filter(([, n]) => n > 0)
    .map(([unit, n]) => `${n} ${unit}`)
    .join(' ');
}

/** What the report says and `--json` carries (`clockSkew`). */
export interface SkewNotice {
  /** The server's time by its Date header (ISO 8601). */
  serverTime: string;
  /** This machine's time when that answer arrived (ISO 8601). */
  localTime: string;
  /** This clock minus the server's, in whole seconds: positive when this clock is ahead. */
  aheadSeconds: number;
}

export function skewNotice(serverMs: number, localMs: number): SkewNotice {
  return {
    serverTime: new Date(serverMs).toISOString(),
    localTime: new Date(localMs).toISOString(),
    aheadSeconds: Math.round((localMs - serverMs) / 1000),
  };
}

/** The one line said on stderr. */
export function describeSkew(n: SkewNotice, api: string): string {
  const ahead = n.aheadSeconds > 0;
  return `this machine's clock is ${formatDuration(n.aheadSeconds * 1000)} ${ahead ? 'ahead of' : 'behind'} the server's (${api} says ${n.serverTime}); a meeting counts as over only when both clocks say so`;
}
