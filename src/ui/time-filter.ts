/**
 * Typing in a picker's list of times jumps by time, not by position: `14` (the 14:00 hour),
 * `2pm`, `14:30`, `1430`, `9.30`, `noon`, or a part of the day (`morning`, `afternoon`,
 * `evening`). A bare hour from 1 to 11 also finds the afternoon's (`2` is 02:xx and 14:xx).
 * Anything else is matched against the time as shown (`14:3` finds 14:30).
 */
import { DateTime } from 'luxon';
import { PARTS_OF_DAY } from '../domain/human-time.js';

export function timeMatches(term: string, iso: string, zone: string): boolean {
  const t = term.trim().toLowerCase();
  if (t === '') return true;
  const at = DateTime.fromISO(iso, { zone });
  const { hour, minute } = at;
  const part = PARTS_OF_DAY[t as keyof typeof PARTS_OF_DAY];
  if (part) return hour >= part[0] && hour < part[1];
  if (t === 'noon') return hour === 12 && minute === 0;
  const clock = /^(\d{1,2})(?:[:.h]?(\d{2}))?\s*(am|pm|a|p)?$/.exec(t);
  if (clock) {
    let h = Number(clock[1]);
    const m = clock[2] === undefined ? undefined : Number(clock[2]);
    const meridiem = clock[3]?.[0];
    if (meridiem) {
      if (h < 1 || h > 12) return false;
      h = (h % 12) + (meridiem === 'p' ? 12 : 0);
    }
    const hours = meridiem || h === 0 || h > 11 ? [h] : [h, h + 12];
    return hours.includes(hour) && (m === undefined || m === minute);
  }
  return at.toFormat('HH:mm').startsWith(t);
}
