/**
 * The time picker of `reschedule` and the route wizard: a day first (type a day to jump:
 * "tu", "weds", "next tuesday", "dec 3"), then a time of that day; the answer is echoed with
 * its full date and zone. Loaded only when a terminal is prompted.
 * Every label here is built from instants and our own words; the caller's extras are sanitized.
 */
import { search, Separator } from '@inquirer/prompts';
import { DateTime } from 'luxon';
import { loadTimeExpressions, readLoadedTime } from '../domain/human-time.js';
import { groupByDay } from '../domain/slots.js';
import { dayKey, formatInZone } from '../domain/time.js';
import { sanitizeText } from './sanitize.js';
import { timeMatches } from './time-filter.js';

export interface PickerExtra {
  name: string;
  value: string;
}

export type DayTimeAnswer =
  | { kind: 'slot'; slot: string }
  | { kind: 'extra'; value: string }
  /** A day outside the times shown: the caller fetches the times from its start. */
  | { kind: 'day'; day: Date };

export interface DayTimeOptions {
  /** The question, without the zone (added after it), e.g. `Pick a time`. */
  message: string;
  /** Said after the zone, e.g. `hold expires in 9 min`. */
  detail?: string;
  zone: string;
  now: Date;
  slots: string[];
  /** Ways on (later times, another zone): listed after the days (typing "later" finds them). */
  extras: PickerExtra[];
  /** Open at this range's times (a part of the day the user named), skipping the day question. */
  within?: { from: Date; to: Date } | undefined;
  /** Open at this day's times (a day just jumped to). */
  openDay?: string | undefined;
  /** The range the slots were looked up in: its days without a free time are listed as such. */
  range?: { from: Date; to: Date } | undefined;
  /** Times refused for this choice (a move's host said no): listed on their day as refused, never pickable. */
  refused?: readonly string[] | undefined;
}

type IO = { input: NodeJS.ReadableStream; output: NodeJS.WritableStream };

const BACK = '__days__';
const DAY = 'day:';
const JUMP = 'jump:';

/** The answer's echo: `Tue 2026-12-01 15:00 CET (Europe/Berlin)`. */
export function fullTime(iso: string | Date, zone: string): string {
  const shown = `${DateTime.fromJSDate(new Date(iso), { zone }).toFormat('ccc')} ${formatInZone(iso, zone)}`;
  return shown.endsWith(zone) ? shown : `${shown} (${zone})`;
}

export async function pickDayThenTime(io: IO, o: DayTimeOptions): Promise<DayTimeAnswer> {
  await loadTimeExpressions();
  const days = groupByDay(o.slots, o.zone);
  const head = `${o.message} (${o.zone})${o.detail ? ` · ${o.detail}` : ''}`;
  let open: string[] | undefined;
  if (o.within) {
    const { from, to } = o.within;
    const inRange = o.slots.filter((s) => Date.parse(s) >= from.getTime() && Date.parse(s) < to.getTime());
    if (inRange.length > 0) open = inRange;
  } else if (o.openDay) {
    open = days.find((d) => d.day === o.openDay)?.slots;
  }
  for (;;) {
    if (!open) {
      const chosen = await search<string>(
        {
          message: `${head} — pick a day (or type one: tue, weds, next tuesday, dec 3)`,
          source: (term) => dayChoices(term ?? '', days, o),
          pageSize: 12,
        },
        io,
      );
      if (chosen.startsWith(JUMP)) return { kind: 'day', day: new Date(chosen.slice(JUMP.length)) };
      if (!chosen.startsWith(DAY)) return { kind: 'extra', value: chosen };
      open = days.find((d) => d.day === chosen.slice(DAY.length))?.slots ?? [];
    }
    const times = open;
    const day = times[0] ?? refusedOn(o.openDay, o);
    const dayName = day ? DateTime.fromISO(day, { zone: o.zone }).toFormat('cccc d LLLL') : 'no free times';
    const refused = day ? (o.refused ?? []).filter((r) => dayKey(r, o.zone) === dayKey(day, o.zone)) : [];
    // A search, not a select: typing jumps by time (14, 2pm, 14:30, afternoon), never by position.
    const answer = await search<string>(
      {
        message: `${head} — ${dayName} (type a time: 14, 2pm, 14:30, afternoon)`,
        source: (term) => timeChoices(term ?? '', times, o.zone, refused),
        pageSize: 14,
      },
      io,
    );
    if (answer !== BACK) return { kind: 'slot', slot: answer };
    open = undefined;
  }
}

/** The times of a day that match what was typed (all of them for nothing), then the way back to the days. */
function timeChoices(
  raw: string,
  times: string[],
  zone: string,
  refused: readonly string[] = [],
): Array<{ name: string; value: string; short?: string; disabled?: string } | Separator> {
  const back = { name: '← other days', value: BACK, short: 'other days' };
  const label = (s: string) =>
    `${DateTime.fromISO(s, { zone }).toFormat('ccc d LLL')}  ${DateTime.fromISO(s, { zone }).toFormat('HH:mm')}`;
  const shown = [...times, ...refused]
    .filter((s) => timeMatches(raw, s, zone))
    .sort((a, b) => Date.parse(a) - Date.parse(b));
  const list: Array<{ name: string; value: string; short?: string; disabled?: string } | Separator> = shown.map((s) =>
    refused.includes(s)
      ? { name: `${label(s)}  ·  refused by this meeting's host`, value: `refused:${s}`, disabled: ' ' }
      : { name: label(s), value: s, short: fullTime(s, zone) },
  );
  if (!shown.some((s) => !refused.includes(s)))
    list.push(new Separator(`  (no free time at "${sanitizeText(raw.trim())}" on this day: type another, or go back)`));
  // Said first (Enter takes the first time): the way back is the last entry.
  return [new Separator('  ← other days: the last entry'), ...list, back];
}

/** A refused time on `day` (an open day whose every time was refused still opens, showing them). */
function refusedOn(day: string | undefined, o: DayTimeOptions): string | undefined {
  return day === undefined ? undefined : o.refused?.find((r) => dayKey(r, o.zone) === day);
}

/** Every day of the looked-up range: with its free times, or said to have none (never left out). */
function allDays(days: ReturnType<typeof groupByDay>, o: DayTimeOptions): Array<{ day: string; slots: string[] }> {
  if (!o.range) return days;
  const out: Array<{ day: string; slots: string[] }> = [];
  const now = DateTime.fromJSDate(o.now, { zone: o.zone }).startOf('day');
  let d = DateTime.fromJSDate(o.range.from, { zone: o.zone }).startOf('day');
  if (d < now) d = now;
  const end = DateTime.fromJSDate(o.range.to, { zone: o.zone });
  for (; d < end && out.length < 400; d = d.plus({ days: 1 })) {
    const key = d.toFormat('yyyy-MM-dd');
    const held = days.find((x) => x.day === key);
    // A day the range only begins (it ends inside it) is not said to have nothing: the next page has it.
    if (held || d.plus({ days: 1 }) <= end) out.push(held ?? { day: key, slots: [] });
  }
  return out;
}

function dayChoices(
  raw: string,
  days: ReturnType<typeof groupByDay>,
  o: DayTimeOptions,
): Array<{ name: string; value: string; short?: string; disabled?: string } | Separator> {
  const term = raw.trim().toLowerCase();
  const extras = o.extras.map((e) => ({ name: sanitizeText(e.name), value: e.value }));
  const label = (day: string) => DateTime.fromISO(day, { zone: o.zone });
  const entry = (d: { day: string; slots: string[] }) =>
    d.slots.length === 0
      ? {
          name: `${label(d.day).toFormat('ccc d LLL')}  ·  no free times`,
          value: `${DAY}${d.day}`,
          disabled: ' ',
        }
      : {
          name: `${label(d.day).toFormat('ccc d LLL')}  ·  ${d.slots.length} free ${d.slots.length === 1 ? 'time' : 'times'}`,
          value: `${DAY}${d.day}`,
          short: label(d.day).toFormat('cccc d LLLL yyyy'),
        };
  const listed = allDays(days, o);
  if (term === '') {
    // The soonest day with free times first (Enter takes it), days without any said so, the ways
    // on (later times, another zone) after the days.
    const list: Array<{ name: string; value: string; short?: string; disabled?: string } | Separator> =
      listed.map(entry);
    if (days.length === 0) list.push(new Separator('  (no free times in this range)'));
    return [...list, ...extras];
  }
  const named = namedDay(term, o);
  const matches = listed.filter((d) => {
    const l = label(d.day);
    const weekday = l.toFormat('cccc').toLowerCase();
    return (
      weekday.startsWith(term.replace(/^weds/, 'wed').replace(/^thurs?/, 'thu')) ||
      l.toFormat('d LLL').toLowerCase().includes(term) ||
      l.toFormat('LLL d').toLowerCase().includes(term) ||
      d.day === named
    );
  });
  const list: Array<{ name: string; value: string; short?: string; disabled?: string } | Separator> =
    matches.map(entry);
  if (named && !listed.some((d) => d.day === named)) {
    const day = DateTime.fromISO(named, { zone: o.zone }).startOf('day');
    if (day.toMillis() >= DateTime.fromJSDate(o.now, { zone: o.zone }).startOf('day').toMillis())
      list.push({
        name: `${day.toFormat('ccc d LLL yyyy')}  ·  look up its free times`,
        value: `${JUMP}${day.toJSDate().toISOString()}`,
        short: day.toFormat('cccc d LLLL yyyy'),
      });
  }
  const ways = extras.filter((e) => e.name.toLowerCase().includes(term));
  if (list.length === 0 && ways.length === 0) list.push(new Separator(`  (no day matches "${sanitizeText(raw)}")`));
  return [...list, ...(ways.length ? ways : extras)];
}

/** The day a typed term names in the grammar (docs/time.md), if it names one. */
function namedDay(term: string, o: DayTimeOptions): string | undefined {
  try {
    const r = readLoadedTime(term, { zone: o.zone, now: o.now, name: 'day', zoneInput: '--tz', rangeStart: true });
    return dayKey(r.kind === 'instant' ? r.at : r.from, o.zone);
  } catch {
    return undefined;
  }
}
