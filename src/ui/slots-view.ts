/**
 * Slots grouped by day in the display zone, one compact line per day. Shared by
 * `slots`, `reschedule`'s picker and the route wizard. No colors here: callers style it.
 */
import { groupByDay } from '../domain/slots.js';
import { dayLabel, timeLabel } from '../domain/time.js';

export interface SlotDayLine {
  label: string;
  times: string[];
}

export function slotDayLines(slots: string[], zone: string): SlotDayLine[] {
  return groupByDay(slots, zone).map((d) => ({
    label: d.slots[0] ? dayLabel(d.slots[0], zone) : d.day,
    times: d.slots.map((s) => timeLabel(s, zone)),
  }));
}

/** Times per output line: a busy day stays readable in an 80-column terminal. */
const TIMES_PER_LINE = 12;

/** `Tue 1 Dec   09:00 09:15 09:30` per day (long days wrap under their times); `(no free times)` when empty. */
export function renderSlotsByDay(slots: string[], zone: string, columns?: number): string {
  const lines = slotDayLines(slots, zone);
  if (lines.length === 0) return '  (no free times in this range)';
  const width = Math.max(...lines.map((l) => l.label.length));
  // On a terminal, as many times a line as its width takes ("HH:mm " each), never a wrapped one.
  const room = columns ? Math.floor((columns - width - 4 + 1) / 6) : TIMES_PER_LINE;
  const perLine = Math.max(1, Math.min(TIMES_PER_LINE, room));
  const out: string[] = [];
  for (const l of lines) {
    for (let i = 0; i < l.times.length; i += perLine) {
      const label = i === 0 ? l.label.padEnd(width) : ' '.repeat(width);
      out.push(`  ${label}  ${l.times.slice(i, i + perLine).join(' ')}`);
    }
  }
  return out.join('\n');
}
