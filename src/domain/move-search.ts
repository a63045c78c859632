/**
 * Which times a move tries, and in what order (docs/slots-booking-rescheduling.md, "How a move
 * finds a time"). The API moves a meeting "keeping its host assignments", while an event's free
 * times are those of all its hosts: a free time of the event may be refused (409 CONFLICT) for
 * this meeting's host. A refusal changes nothing on the server, so the next candidate can be
 * tried; the refusals are remembered for a while so that the next run does not offer them again.
 * Pure: no clock but the one passed in, no requests.
 */

/** How long a refusal is believed: a host's calendar changes (a meeting cancelled, hours changed). */
export const REFUSAL_LAPSE_MS = 60 * 60_000;
/** PATCHes one searched move sends at most, unless --tries says otherwise. */
export const DEFAULT_MOVE_TRIES = 5;
/** The most --tries accepts: each try is a request against the rate budget (30 a minute). */
export const MAX_MOVE_TRIES = 20;
/** Free times within this of a time of day the host already took for this meeting are tried first. */
export const NEAR_TAKEN_MS = 2 * 3_600_000;
/** Refusals kept per meeting at most (the newest): a record's body stays small. */
export const MAX_REFUSALS_KEPT = 50;
/**
 * How far ahead of the clock a refusal's date may be and still be believed (clocks of two
 * machines that agree, give or take). Beyond it the date is a server's clock that is wrong (a
 * `Date: Fri, 31 Dec 9999`, by mistake or on purpose), and such a refusal would never lapse.
 */
export const REFUSAL_SKEW_MS = 5 * 60_000;

const DAY_MS = 86_400_000;

/** A start time the meeting's host refused (CONFLICT), and when it was answered. */
export interface MoveRefusal {
  startTime: string;
  /** When it was answered, by `refusalClock` (the server's, bounded by this machine's), ISO 8601. */
  at: string;
}

/**
 * How far ahead of this machine's clock a server's may be and still date and lapse refusals. A
 * server's clock is the right one for a host's calendar, and an honest skew of hours (a laptop's
 * clock behind) keeps its word; beyond this it is this machine's clock plus this.
 */
export const REFUSAL_SERVER_LEAD_MS = 86_400_000;

/**
 * The clock refusals are dated and lapse by (issue 52 finding 6): the server's (its Date header),
 * but never more than REFUSAL_SERVER_LEAD_MS ahead of this machine's. One clock for both, so a
 * refusal lapses after the hour whichever it is; and a server dated `Fri, 31 Dec 9999` (by
 * mistake or on purpose) no longer dates refusals that never lapse: they used to pile up and,
 * once the server was honest again, block a whole day.
 */
export function refusalClock(serverNow: Date, localNow: Date): Date {
  const most = localNow.getTime() + REFUSAL_SERVER_LEAD_MS;
  return serverNow.getTime() <= most ? serverNow : new Date(most);
}

/**
 * Whether a refusal answered at `at` may still be true at `now` (refusalClock). One dated beyond
 * REFUSAL_SKEW_MS ahead of `now` is not believed (written by a version that trusted a server's
 * clock dated in the future): lapsed, like one that cannot be read. A refusal is a hint; a lapsed
 * one costs one more refused PATCH, never a wrong move.
 */
export function refusalLive(r: Pick<MoveRefusal, 'at'>, now: Date): boolean {
  const at = Date.parse(r.at);
  return Number.isFinite(at) && at <= now.getTime() + REFUSAL_SKEW_MS && now.getTime() < at + REFUSAL_LAPSE_MS;
}

/** The start times (epoch ms) refused and not lapsed at the server's `now`. */
export function refusedTimes(refusals: readonly MoveRefusal[] | undefined, now: Date): Set<number> {
  const out = new Set<number>();
  for (const r of refusals ?? []) {
    const t = Date.parse(r.startTime);
    if (Number.isFinite(t) && refusalLive(r, now)) out.add(t);
  }
  return out;
}

/**
 * The refusals to keep after one more: the lapsed ones and an older answer for the same time
 * dropped, at most MAX_REFUSALS_KEPT (the newest). The new one dated beyond REFUSAL_SKEW_MS
 * ahead of `now` is dated `now`: whatever its caller read, no refusal is kept dated in the future.
 */
export function withRefusal(
  refusals: readonly MoveRefusal[] | undefined,
  refusal: MoveRefusal,
  now: Date,
): MoveRefusal[] {
  const t = Date.parse(refusal.startTime);
  const at = Date.parse(refusal.at);
  const dated =
    Number.isFinite(at) && at <= now.getTime() + REFUSAL_SKEW_MS ? refusal : { ...refusal, at: now.toISOString() };
  const kept = (refusals ?? []).filter((r) => refusalLive(r, now) && Date.parse(r.startTime) !== t);
  return [...kept, dated].slice(-MAX_REFUSALS_KEPT);
}

/** Minutes between two times of day (UTC), the short way round the clock. */
function clockDistance(a: number, b: number): number {
  const d = Math.abs((((a % DAY_MS) + DAY_MS) % DAY_MS) - (((b % DAY_MS) + DAY_MS) % DAY_MS));
  return Math.min(d, DAY_MS - d);
}

export interface SearchOrderInput {
  /** The event's free times in the window the user named. */
  slots: readonly string[];
  /** The meeting's start now: never tried (it is there already); its time of day is one the host took. */
  current?: string | undefined;
  /** Other times this meeting's host took (its earlier times): its working hours are near them. */
  taken?: ReadonlyArray<string | undefined> | undefined;
  /** Start times (epoch ms) this meeting's host refused, not lapsed. */
  refused: ReadonlySet<number>;
  /** The window searched, [from, to): a meeting already in it is tried at its own time first. */
  window?: { from: Date; to: Date } | undefined;
}

/**
 * The order a searched move tries the free times in: never a refused time. A meeting already in
 * the window is tried at its own time first (it stays: the same search again changes nothing);
 * then the free times within two hours of a time of day the host already took for this meeting
 * (a host works the same hours most days; an event's earliest free time is often another
 * host's, hours before this host starts), earliest first; then the others, earliest first.
 * Without a time on record, simply earliest first.
 */
export function searchOrder(o: SearchOrderInput): string[] {
  const current = o.current === undefined ? NaN : Date.parse(o.current);
  const taken = [o.current, ...(o.taken ?? [])]
    .map((s) => (s === undefined ? NaN : Date.parse(s)))
    .filter(Number.isFinite);
  const seen = new Set<number>();
  const candidates = [...o.slots]
    .map((s) => ({ s, t: Date.parse(s) }))
    .filter(({ t }) => Number.isFinite(t) && !o.refused.has(t) && t !== current && !seen.has(t) && seen.add(t))
    .sort((a, b) => a.t - b.t);
  const near = (t: number) => taken.some((k) => clockDistance(t, k) <= NEAR_TAKEN_MS);
  const stays =
    o.current !== undefined &&
    o.window !== undefined &&
    current >= o.window.from.getTime() &&
    current < o.window.to.getTime() &&
    !o.refused.has(current);
  const order = [...candidates.filter(({ t }) => near(t)), ...candidates.filter(({ t }) => !near(t))];
  return [...(stays ? [new Date(current).toISOString()] : []), ...order.map(({ s }) => s)];
}

/** The event's free times offered after a refusal: never one this meeting's host refused. */
export function offerable(slots: readonly string[], refused: ReadonlySet<number>): string[] {
  return slots.filter((s) => !refused.has(Date.parse(s)));
}
