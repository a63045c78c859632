/**
 * Slot ranges: the API answers at most 63 days per request, so longer ranges are split
 * into consecutive windows that all pass the same reservation (same host selection).
 */
import type { Api } from '../api/endpoints.js';
import type { SlotsResult } from '../api/schemas.js';
import { dayKey } from './time.js';

export const MAX_RANGE_DAYS = 63;
const DAY_MS = 86_400_000;

/** Consecutive half-open windows of at most 63 days covering [from, to). */
export function splitRange(from: Date, to: Date): Array<{ start: Date; end: Date }> {
  const windows: Array<{ start: Date; end: Date }> = [];
  let start = from.getTime();
  const end = to.getTime();
  while (start < end) {
    const stop = Math.min(start + MAX_RANGE_DAYS * DAY_MS, end);
    windows.push({ start: new Date(start), end: new Date(stop) });
    start = stop;
  }
  return windows;
}

export interface SlotsRange {
  from: Date;
  to: Date;
  reservationId?: string | undefined;
}

/**
 * One request per window, all with one reservation (the given one, else the first answer's).
 * Slots are merged by instant (no duplicates), sorted and kept within [from, to);
 * reservation and expiry come from the last answer.
 */
export async function fetchSlots(api: Pick<Api, 'slots'>, event: string, range: SlotsRange): Promise<SlotsResult> {
  let reservationId = range.reservationId;
  let last: SlotsResult | undefined;
  const seen = new Map<number, string>();
  for (const w of splitRange(range.from, range.to)) {
    last = await api.slots(event, {
      start: w.start.toISOString(),
      end: w.end.toISOString(),
      ...(reservationId ? { reservationId } : {}),
    });
    reservationId ??= last.reservationId;
    for (const s of last.slots) {
      const t = Date.parse(s);
      if (Number.isNaN(t) || t < range.from.getTime() || t >= range.to.getTime()) continue;
      if (!seen.has(t)) seen.set(t, s);
    }
  }
  if (!last) throw new Error('fetchSlots: empty range (validate the range before calling)');
  const slots = [...seen.entries()].sort(([a], [b]) => a - b).map(([, s]) => s);
  return { ...last, slots };
}

export interface SlotDay {
  day: string;
  slots: string[];
}

/** Slots grouped by their calendar day in the zone, in order. */
export function groupByDay(slots: string[], zone: string): SlotDay[] {
  const days: SlotDay[] = [];
  for (const s of [...slots].sort((a, b) => Date.parse(a) - Date.parse(b))) {
    const day = dayKey(s, zone);
    const current = days[days.length - 1];
    if (current?.day === day) current.slots.push(s);
    else days.push({ day, slots: [s] });
  }
  return days;
}

/** The n slots closest to the target, in time order. */
export function nearestSlots(slots: string[], target: Date, n: number): string[] {
  const t = target.getTime();
  return [...slots]
    .sort((a, b) => Math.abs(Date.parse(a) - t) - Math.abs(Date.parse(b) - t))
    .slice(0, n)
    .sort((a, b) => Date.parse(a) - Date.parse(b));
}
