/**
 * Pure availability math: no clock, no state. All instants are epoch milliseconds.
 *
 * A host's grid is built per local working day in the host's own zone: the first
 * candidate start is the start of working hours, then every `increment` minutes while
 * the whole meeting (`duration`) still ends by the end of working hours. Local times
 * go through luxon, so a DST change inside the range shifts the UTC instants of the
 * grid but never the local working hours.
 */
import { DateTime } from 'luxon';

export interface Interval {
  start: number;
  end: number;
}

export interface HostCalendar {
  id: string;
  zone: string;
  weekdays: number[];
  startMinute: number;
  endMinute: number;
  /** Blocks from the host's calendar (not bookable, ever). */
  busy: Interval[];
  /** Meetings already booked with this host (SLOT_TAKEN territory). */
  booked: Interval[];
}

export interface SlotRules {
  /** Minutes. */
  duration: number;
  /** Minutes. */
  increment: number;
  /** Only starts strictly after this instant are offered ("only future times"). */
  now: number;
}

const MINUTE = 60_000;
const DAY = 86_400_000;

/** Grid starts of one host in the half-open [from, to), ignoring busy time. */
export function gridStarts(host: HostCalendar, from: number, to: number, rules: SlotRules): number[] {
  const out: number[] = [];
  const step = rules.increment * MINUTE;
  const length = rules.duration * MINUTE;
  if (step <= 0 || length <= 0 || to <= from) return out;
  // Start a day early: a working day that began before `from` can still hold starts in range.
  let day = DateTime.fromMillis(from - DAY, { zone: host.zone }).startOf('day');
  const lastDay = DateTime.fromMillis(to + DAY, { zone: host.zone }).startOf('day');
  while (day <= lastDay) {
    if (host.weekdays.includes(day.weekday)) {
      const open = atMinute(day, host.startMinute);
      const close = atMinute(day, host.endMinute);
      for (let t = open; t + length <= close; t += step) {
        if (t >= from && t < to) out.push(t);
      }
    }
    day = day.plus({ days: 1 }).startOf('day');
  }
  return out;
}

function atMinute(day: DateTime, minuteOfDay: number): number {
  return day
    .set({ hour: Math.floor(minuteOfDay / 60), minute: minuteOfDay % 60, second: 0, millisecond: 0 })
    .toMillis();
}

function overlaps(blocks: Interval[], start: number, end: number): boolean {
  return blocks.some((b) => b.start < end && start < b.end);
}

/** Sorted, de-duplicated start times at which at least one host is free. */
export function listSlots(hosts: HostCalendar[], from: number, to: number, rules: SlotRules): number[] {
  const length = rules.duration * MINUTE;
  const starts = new Set<number>();
  for (const host of hosts) {
    for (const t of gridStarts(host, from, to, rules)) {
      if (t <= rules.now) continue;
      if (overlaps(host.busy, t, t + length) || overlaps(host.booked, t, t + length)) continue;
      starts.add(t);
    }
  }
  return [...starts].sort((a, b) => a - b);
}

export type StartCheck =
  | { kind: 'free'; hostIds: string[] }
  /** Some host works at this grid time and is not blocked, but all of them are booked. */
  | { kind: 'taken' }
  /** No host can take this time at all (off-grid, outside hours, busy block, past). */
  | { kind: 'none' };

/** Classifies one start time for booking: which hosts can take it, or why none can. */
export function checkStart(hosts: HostCalendar[], start: number, rules: SlotRules): StartCheck {
  if (start <= rules.now) return { kind: 'none' };
  const end = start + rules.duration * MINUTE;
  const working = hosts.filter((h) => gridStarts(h, start, start + 1, rules).includes(start));
  const unblocked = working.filter((h) => !overlaps(h.busy, start, end));
  if (unblocked.length === 0) return { kind: 'none' };
  const free = unblocked.filter((h) => !overlaps(h.booked, start, end));
  if (free.length === 0) return { kind: 'taken' };
  return { kind: 'free', hostIds: free.map((h) => h.id) };
}
