/**
 * Where the route's picking stands (book-loop.ts): the window and page of free times shown, the
 * times refused, the workflow run booked for; and how a page is asked for, shown and turned.
 */
import { fetchSlots } from '../slots.js';
import type { RouteSession } from './session.js';
import type { GuestDetails, RouteResult, SlotAnswer, SlotPage } from './types.js';

const DAY_MS = 86_400_000;

/** Where the picking stands: the page shown, the times refused, the workflow run booked for. */
export interface Picking {
  /** The route's result so far (its workflow run changes with a re-fire). */
  result: RouteResult;
  linkId: string;
  reservationId: string | undefined;
  window: { from: Date; to: Date };
  /** undefined: the next page is asked for (one slots request). */
  page: SlotPage | undefined;
  /** When the page was fetched (epoch ms): another booking's time since is skipped (state/slot-claims.ts). */
  pageAt: number;
  reason: SlotPage['reason'];
  openDay: Date | undefined;
  refused: Set<number>;
  guests: GuestDetails | undefined;
  attempts: number;
}

/** The first page's window: `days` from now (a new reservation starts there too). */
export function firstWindow(s: RouteSession): { from: Date; to: Date } {
  const from = s.deps.options.now();
  return { from, to: new Date(from.getTime() + s.deps.options.days * DAY_MS) };
}

/** The page to show: the one held, else asked for (one slots request, with the reservation held). */
export async function currentPage(s: RouteSession, p: Picking): Promise<SlotPage> {
  if (!p.page) {
    p.pageAt = s.deps.options.now().getTime();
    const fresh = await fetchSlots(s.deps.api, p.linkId, { ...p.window, reservationId: p.reservationId });
    p.reservationId = fresh.reservationId;
    p.page = {
      linkId: p.linkId,
      reservationId: p.reservationId,
      expiresAt: fresh.expiresAt,
      slots: fresh.slots,
      from: p.window.from,
      to: p.window.to,
    };
  }
  return p.page;
}

/** The page as the asker sees it: without the times refused, with why it is shown again. */
export function shownPage(s: RouteSession, p: Picking, page: SlotPage): SlotPage {
  const earlier = p.window.from.getTime() > s.deps.options.now().getTime() + 60_000;
  const shown: SlotPage = {
    ...page,
    slots: page.slots.filter((slot) => !p.refused.has(Date.parse(slot))),
    earlier,
    ...(p.reason ? { reason: p.reason } : {}),
    ...(p.openDay ? { openDay: p.openDay } : {}),
  };
  p.openDay = undefined;
  return shown;
}

/** Another page: from a day typed in, or `days` later or earlier; never before now. */
export function turnPage(s: RouteSession, p: Picking, answer: Exclude<SlotAnswer, { kind: 'slot' }>): void {
  const { now, days } = s.deps.options;
  if (answer.kind === 'day') {
    const from = new Date(Math.max(now().getTime(), answer.day.getTime()));
    p.window = { from, to: new Date(from.getTime() + days * DAY_MS) };
    p.openDay = answer.day;
  } else {
    const { window } = p;
    p.window =
      answer.kind === 'later'
        ? { from: window.to, to: new Date(window.to.getTime() + days * DAY_MS) }
        : { from: new Date(Math.max(now().getTime(), window.from.getTime() - days * DAY_MS)), to: window.from };
  }
  p.page = undefined;
  p.reason = undefined;
}
