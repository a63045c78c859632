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
    label: dayLabel(d.slots[0]!, zone),
    times: d.slots.map((s) => timeLabel(s, zone)),
  }));
}

/** `Tue 1 Dec   09:00 09:15 09:30` per day; `(no free times)` when empty. */
export function renderSlotsByDay(slots: string[], zone: string): string {
  const lines = slotDayLines(slots, zone);
  if (lines.length === 0) return '  (no free times in this range)';
  const width = Math.max(...lines.map((l) => l.label.length));
  return lines.map((l) => `  ${l.label.padEnd(width)}  ${l.times.join(' ')}`).join('\n');
}

/** Choices for a picker: `Tue 1 Dec 14:00` in the zone, value = the slot as the API wrote it. */
export function slotChoices(slots: string[], zone: string): Array<{ name: string; value: string }> {
  return slots.map((s) => ({ name: `${dayLabel(s, zone)} ${timeLabel(s, zone)}`, value: s }));
}
