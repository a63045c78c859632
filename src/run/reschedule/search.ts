/**
 * A move that searches for a time the meeting's host accepts (docs/slots-booking-rescheduling.md,
 * "How a move finds a time"): the event's free times in the window the user named, in the order
 * of domain/move-search.ts, each tried by one PATCH until one is accepted. This module plans the
 * candidates and words the refusals; reschedule.ts sends the PATCHes under the meeting's lock.
 */
import { serverClockOf } from '../../api/server-clock.js';
import type { Context } from '../../context.js';
import { formatRange } from '../../domain/human-time.js';
import {
  DEFAULT_MOVE_TRIES,
  MAX_MOVE_TRIES,
  refusalClock,
  refusedTimes,
  searchOrder,
  type MoveRefusal,
} from '../../domain/move-search.js';
import { fetchSlots } from '../../domain/slots.js';
import { formatInZone } from '../../domain/time.js';
import { ApiError, CliError, EXIT, UsageError } from '../../errors.js';

/** One PATCH of a searched move and its answer: the `tried` of `--json`. */
export interface MoveTry {
  startTime: string;
  /** `CONFLICT`: this meeting's host refused it (nothing changed); `moved`: accepted. */
  answer: 'CONFLICT' | 'moved';
}

/** A move that tries several times: what reschedule.ts's PATCH loop needs and fills in. */
export interface MoveSearch {
  /** What the user named (`first friday`), for messages; undefined for a time picked on a terminal. */
  input?: string | undefined;
  /** In the order they are tried; at most `tries` of them are. */
  candidates: string[];
  tries: number;
  zone: string;
  /** Filled in as the PATCHes are answered. */
  tried: MoveTry[];
  /** The time whose PATCH got no answer (the search stopped there: it may have moved). */
  lost?: string;
}

/** `--tries N`: a whole number from 1 to MAX_MOVE_TRIES, checked before any request. */
export function parseTries(raw: string | number | undefined, name = '--tries'): number {
  if (raw === undefined) return DEFAULT_MOVE_TRIES;
  const text = String(raw).trim();
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < 1 || n > MAX_MOVE_TRIES)
    throw new UsageError(`invalid ${name} "${text}": expected a whole number from 1 to ${MAX_MOVE_TRIES}`);
  return n;
}

/**
 * The "now" refusals are dated and lapse by: the server's clock as heard in this command, never
 * more than a day ahead of this machine's (domain/move-search.ts refusalClock; issue 52 finding 6).
 */
export async function refusalNow(ctx: Context): Promise<Date> {
  return refusalClock(serverClockOf(ctx).serverNow((await ctx.target()).baseUrl), ctx.clock.now());
}

/** The refused times of this meeting, not lapsed, by the refusals' clock now. */
export async function liveRefused(ctx: Context, refused: readonly MoveRefusal[] | undefined): Promise<Set<number>> {
  return refusedTimes(refused, await refusalNow(ctx));
}

/** `Fri 4 Dec 09:00 EST`-like: a time a person reads, in their zone. */
export const readable = (iso: string, zone: string) => formatInZone(iso, zone);

/**
 * The candidates of a searched move: the event's free times in the window (one slots request),
 * minus the refused ones, in search order. None: NO_SLOTS (exit 4), saying whether refusals
 * left none.
 */
export async function planSearch(
  ctx: Context,
  m: { event: string; was: string | undefined; history?: ReadonlyArray<{ from?: string; to: string }> | undefined },
  refused: readonly MoveRefusal[] | undefined,
  window: { input: string; from: Date; to: Date },
  o: { zone: string; tries: number },
): Promise<MoveSearch> {
  const now = ctx.clock.now();
  const from = window.from > now ? window.from : now;
  const page = await fetchSlots(await ctx.api(), m.event, { from, to: window.to });
  const refusedNow = await liveRefused(ctx, refused);
  const candidates = searchOrder({
    slots: page.slots,
    current: m.was,
    taken: (m.history ?? []).flatMap((h) => [h.from, h.to]),
    refused: refusedNow,
    window: { from, to: window.to },
  });
  if (candidates.length === 0) {
    const range = formatRange({ from, to: window.to }, o.zone);
    const all = page.slots.length;
    throw new CliError(
      'NO_SLOTS',
      all > 0
        ? `this meeting's host refused every free time of ${m.event} in "${window.input}" (${range}) within the last hour`
        : `no free times of ${m.event} in "${window.input}" (${range})`,
      EXIT.notFound,
      { hint: `pick another day or part of it, or see the free times: schedctl slots ${m.event}` },
    );
  }
  return { input: window.input, candidates, tries: o.tries, zone: o.zone, tried: [] };
}

/** The one line said on stderr for each refusal of a searched move (after it is in `tried`). */
export function refusalLine(search: MoveSearch, startTime: string): string {
  const n = search.tried.length;
  const most = Math.min(search.tries, search.candidates.length);
  const next = n < most ? `: trying the next free time (${n + 1} of at most ${most})` : '';
  return `this meeting's host refused ${readable(startTime, search.zone)} (CONFLICT; nothing changed)${next}`;
}

/** Every candidate tried was refused: CONFLICT (exit 5) naming them, nothing moved. */
export function noneAccepted(
  last: ApiError,
  search: MoveSearch,
  meetingId: string,
  event: string | undefined,
): ApiError {
  const times = search.tried.map((t) => t.startTime);
  const more = search.candidates.length > search.tried.length;
  const said = search.input ? ` in "${search.input}"` : '';
  return new ApiError({
    ...last.fields(),
    message: `this meeting's host refused ${times.length === 1 ? 'the time' : `all ${times.length} times`} tried${said}; nothing was moved`,
    details: times.map((t) => `refused: ${t}`),
    hint: search.input
      ? `${more ? `try more of its ${search.candidates.length} free times (--tries ${Math.min(MAX_MOVE_TRIES, search.candidates.length)}), or ` : ''}name another day or part of it (--start "first <day>"); these are the event's free times, and this meeting's host may not take all of them: schedctl slots ${event ?? '<event>'}`
      : `pick another time: schedctl reschedule ${meetingId} --start <time>`,
  });
}
