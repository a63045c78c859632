/**
 * Times as people say them: "tomorrow 3pm", "thu 15:00", "next monday 9:30", "dec 3 14:00".
 * The fixed forms of ./time.ts are tried first; chrono-node is loaded only when none of them
 * matches, so no other path pays for it. chrono only reads the words: its year, month, day,
 * hour and minute are taken as a wall time in the zone and luxon makes the instant (with the
 * same DST gap/fold refusals as the fixed forms). chrono's own offset handling is not used.
 * Whatever could be read two ways is refused with both readings, never guessed.
 */
import type { ParsedComponents, ParsedResult } from 'chrono-node';
import { DateTime } from 'luxon';
import { UsageError } from '../errors.js';
import { levenshtein } from './closest.js';
import {
  isNotUnderstood,
  localToInstant,
  parseTimeInput,
  type TimeInputOptions,
  timeForms,
  timeInputError,
  type WallTime,
} from './time.js';

/** `3/4`, `3/4/27`: chrono reads month first (US); elsewhere it is day first. */
const SLASH_DATE = /(?<![\d/])(\d{1,2})\/(\d{1,2})(?:\/(\d{2,4}))?(?![\d/])/;
/** Words that look back, which chrono (forwardDate) would read as the next such day. */
const PAST_WORD = /\b(last|previous)\b/i;
/** A lone hour chrono did not take ("thu 3"): a trailing number after the expression. */
const TRAILING_HOUR = /^\s*(?:at\s+)?(\d{1,2})\s*$/i;
/** Minutes written out ("9:30", "3.30") make a 24-hour time; a bare "3" does not. */
const HAS_MINUTES = /\d\s*[:.]\s*\d/;
/** Exact times said in words. */
const EXACT_WORDS = new Set(['casualReference/noon', 'casualReference/midnight']);
/** Day words that carry no time of day. */
const DAY_WORDS = new Set([
  'casualReference/today',
  'casualReference/tomorrow',
  'casualReference/yesterday',
  'casualReference/now',
]);

type Chrono = typeof import('chrono-node/en');
let chronoModule: Chrono | undefined;

/** Loads the parser of times as people say them (once); parseLoadedTimeExpression needs it. */
export async function loadTimeExpressions(): Promise<void> {
  chronoModule ??= await import('chrono-node/en');
}

/**
 * What a time input names: one instant, or a range (a part of the day: "next tuesday
 * afternoon"), with `first` when the wording asks for its first free time ("first tue
 * afternoon"). docs/time.md is the grammar, one table a unit test reads row by row.
 */
export type TimeReading =
  { kind: 'instant'; at: Date } | { kind: 'range'; from: Date; to: Date; first: boolean; part: PartOfDay };

export type PartOfDay = 'morning' | 'afternoon' | 'evening' | 'day';
/** The parts of the day, as [start hour, end hour) in the zone. */
export const PARTS_OF_DAY: Record<Exclude<PartOfDay, 'day'>, readonly [number, number]> = {
  morning: [8, 12],
  afternoon: [12, 17],
  evening: [17, 21],
};

/** Every weekday spelling people use, to the full name: the words a misspelling is compared with. */
const WEEKDAY_ALIASES: Record<string, string> = {
  mon: 'monday',
  tue: 'tuesday',
  tues: 'tuesday',
  wed: 'wednesday',
  weds: 'wednesday',
  thu: 'thursday',
  thur: 'thursday',
  thurs: 'thursday',
  fri: 'friday',
  sat: 'saturday',
  sun: 'sunday',
};
const FIRST_WORDING = /^(?:first|earliest)(?:\s+free)?(?:\s+(?:time|slot))?(?:\s+(?:in|on))?\s+(.+)$/i;
const PART_WORD = /\b(morning|afternoon|evening)\b/i;
/** Words the grammar knows: an unknown word is compared with them to suggest the nearest form. */
const VOCABULARY = [
  ...Object.keys(WEEKDAY_ALIASES),
  ...Object.values(WEEKDAY_ALIASES),
  'today',
  'tomorrow',
  'now',
  'next',
  'this',
  'noon',
  'midnight',
  'morning',
  'afternoon',
  'evening',
  'first',
  'at',
  'am',
  'pm',
  'in',
  'hours',
  'minutes',
  ...[
    'january',
    'february',
    'march',
    'april',
    'may',
    'june',
    'july',
    'august',
    'september',
    'october',
    'november',
    'december',
  ],
  ...['jan', 'feb', 'mar', 'apr', 'jun', 'jul', 'aug', 'sep', 'sept', 'oct', 'nov', 'dec'],
];

/** The abbreviations chrono does not know (tues, weds), spelled out; it reads the others itself. */
const SPELL_OUT: Record<string, string> = { tues: 'tuesday', weds: 'wednesday' };
export function normalizeTimeWords(input: string): string {
  return input.trim().replace(/\b[a-z]+\b/gi, (word) => SPELL_OUT[word.toLowerCase()] ?? word);
}

/** Loads the parser when one of these inputs is not a fixed form (the ISO forms, today, now stay free). */
export async function loadTimeExpressionsFor(inputs: Array<string | undefined>): Promise<void> {
  const fixed = (v: string) => {
    try {
      parseTimeInput(v, { zone: 'UTC', now: new Date(0), name: '', zoneInput: '' });
      return true;
    } catch (error) {
      return !isNotUnderstood(error);
    }
  };
  if (inputs.some((v) => v !== undefined && !fixed(v))) await loadTimeExpressions();
}

export async function readTime(input: string, opts: TimeInputOptions): Promise<TimeReading> {
  try {
    parseTimeInput(input, opts);
  } catch (error) {
    if (!isNotUnderstood(error)) throw error;
    await loadTimeExpressions();
  }
  return readLoadedTime(input, opts);
}

/**
 * readTime, synchronously, once loadTimeExpressions() has run (without it: the fixed forms only).
 * A day without a time of day ("tues", "2026-12-01", "tomorrow") is a moment only at a range's
 * start or end (`rangeStart`: its start; `endOfDay`: its end). Where one time is booked or moved
 * to, it is the whole day, a range to pick in: never its midnight, taken without a question.
 */
export function readLoadedTime(input: string, opts: TimeInputOptions): TimeReading {
  const reading = readReading(input, opts);
  if (reading.kind !== 'instant' || opts.rangeStart || opts.endOfDay) return reading;
  // A day alone reads differently as a range's end (through the day's end): that is how it is told from a time.
  const end = readReading(input, { ...opts, endOfDay: true });
  if (end.kind !== 'instant' || end.at.getTime() === reading.at.getTime()) return reading;
  return { kind: 'range', from: reading.at, to: end.at, first: false, part: 'day' };
}

function readReading(input: string, opts: TimeInputOptions): TimeReading {
  try {
    return { kind: 'instant', at: parseTimeInput(input, opts) };
  } catch (error) {
    if (!isNotUnderstood(error) || !chronoModule) throw error;
  }
  const firstMatch = FIRST_WORDING.exec(input.trim());
  const text = firstMatch?.[1] ?? input;
  const part = PART_WORD.exec(text);
  if (part) {
    const name = (part[1] ?? '').toLowerCase() as keyof typeof PARTS_OF_DAY;
    const rest = text
      .replace(PART_WORD, ' ')
      .replace(/\b(this|in the)\b/gi, ' ')
      .replace(/\s+/g, ' ')
      .trim();
    let day: Date;
    try {
      const dayOpts = { ...opts, endOfDay: false };
      day = rest === '' ? parseTimeInput('today', dayOpts) : readInstant(rest, dayOpts);
    } catch (error) {
      throw withSuggestion(input, opts, error);
    }
    const start = DateTime.fromJSDate(day, { zone: opts.zone });
    if (!start.equals(start.startOf('day')))
      throw timeInputError(input, opts, `a part of the day takes a day, not a time ("${rest}")`);
    const [h0, h1] = PARTS_OF_DAY[name];
    return {
      kind: 'range',
      from: start.set({ hour: h0 }).toJSDate(),
      to: start.set({ hour: h1 }).toJSDate(),
      first: firstMatch !== null,
      part: name,
    };
  }
  let at: Date;
  try {
    at = readInstant(text, { ...opts, endOfDay: false });
  } catch (error) {
    throw withSuggestion(input, opts, error);
  }
  if (!firstMatch) return opts.endOfDay ? { kind: 'instant', at: readInstant(text, opts) } : { kind: 'instant', at };
  // "first tomorrow": the whole day is the range.
  const day = DateTime.fromJSDate(at, { zone: opts.zone });
  if (!day.equals(day.startOf('day')))
    throw timeInputError(input, opts, '"first" takes a day or a part of the day (first tue afternoon), not a time');
  return { kind: 'range', from: at, to: day.plus({ days: 1 }).toJSDate(), first: true, part: 'day' };
}

export async function parseTimeExpression(input: string, opts: TimeInputOptions): Promise<Date> {
  return instantOf(input, await readTime(input, opts), opts);
}

/**
 * The same, synchronously, once loadTimeExpressions() has run (bulk rows are checked by the
 * thousand: one load, then plain calls). Without it only the fixed forms are read.
 * A part of the day is a range: a range start (`rangeStart`) takes its start, a range end
 * (`endOfDay`) its end; anything else refuses it, saying how to pick in it.
 */
export function parseLoadedTimeExpression(input: string, opts: TimeInputOptions): Date {
  return instantOf(input, readLoadedTime(input, opts), opts);
}

function instantOf(input: string, reading: TimeReading, opts: TimeInputOptions): Date {
  if (reading.kind === 'instant') return reading.at;
  if (opts.endOfDay) return reading.to;
  if (opts.rangeStart) return reading.from;
  if (reading.part === 'day' && !reading.first) throw dayWithoutTime(input, reading.from, opts);
  const shown = formatRange(reading, opts.zone);
  const clock = reading.part === 'morning' ? '09:00' : reading.part === 'evening' ? '18:00' : '15:00';
  throw timeInputError(
    input,
    opts,
    `a part of the day is a range (${shown}), not one time`,
    opts.picks
      ? `write "first ${input.replace(FIRST_WORDING, '$1')}" to take its first free time, or a clock time (${clock}); on a terminal, schedctl offers the free times in it`
      : `write one time, e.g. ${clock} on that day (free times: schedctl slots <event>)`,
  );
}

/** A day where one time is needed: refused, naming the forms that work (a picker, when the caller has one, is the caller's). */
function dayWithoutTime(input: string, day: Date, opts: TimeInputOptions): UsageError {
  const date = DateTime.fromJSDate(day, { zone: opts.zone }).toFormat('yyyy-MM-dd');
  const said = input.trim();
  return timeInputError(
    input,
    opts,
    `a day without a time of day (${date}) is not one time`,
    opts.picks
      ? `write a time on that day ("${said} 15:00", "${said} 3pm"), "first ${said}" to take its first free time, or a part of it ("${said} afternoon"); on a terminal, schedctl offers the free times of the day`
      : `write a time on that day, e.g. "${said} 15:00", "${said} 3pm" or "${date} 15:00" (free times: schedctl slots <event>)`,
  );
}

/** `2026-12-01 12:00 to 17:00 CET` */
export function formatRange(r: { from: Date; to: Date }, zone: string): string {
  const a = DateTime.fromJSDate(r.from, { zone });
  const b = DateTime.fromJSDate(r.to, { zone });
  return `${a.toFormat('yyyy-MM-dd HH:mm')} to ${b.hasSame(a, 'day') ? b.toFormat('HH:mm ZZZZ') : b.toFormat('yyyy-MM-dd HH:mm ZZZZ')}`;
}

/** A refusal, with the nearest accepted wording when a misspelt word is all that stood in the way. */
function withSuggestion(input: string, opts: TimeInputOptions, error: unknown): unknown {
  if (!(error instanceof UsageError)) return error;
  const suggestion = nearestForm(input, opts);
  if (!suggestion) return error;
  return new UsageError(error.message, { hint: `did you mean "${suggestion}"? ${error.hint ?? ''}`.trim() });
}

function nearestForm(input: string, opts: TimeInputOptions): string | undefined {
  let changed = false;
  const fixed = input.trim().replace(/[a-z]{3,}/gi, (word) => {
    const w = word.toLowerCase();
    if (VOCABULARY.includes(w)) return word;
    let best: string | undefined;
    let bestDistance = w.length <= 4 ? 1 : 2;
    for (const v of VOCABULARY) {
      const d = levenshtein(w, v);
      if (d <= bestDistance && (best === undefined || d < bestDistance || v.length > best.length)) {
        best = v;
        bestDistance = d;
      }
    }
    if (!best) return word;
    changed = true;
    return WEEKDAY_ALIASES[best] ?? best;
  });
  if (!changed) return undefined;
  try {
    readLoadedTime(fixed, { ...opts, rangeStart: true });
    return fixed;
  } catch {
    return undefined;
  }
}

/** One instant from chrono's reading of the words (weekday abbreviations spelled out first). */
function readInstant(input: string, opts: TimeInputOptions): Date {
  try {
    return parseTimeInput(input, opts);
  } catch (error) {
    if (!isNotUnderstood(error) || !chronoModule) throw error;
  }
  const nowWall = DateTime.fromJSDate(opts.now, { zone: opts.zone });
  // chrono computes "tomorrow" and weekdays on a Date's local fields: give it one whose local
  // fields are the wall time in the zone, and read its answer's fields back the same way.
  const ref = new Date(
    nowWall.year,
    nowWall.month - 1,
    nowWall.day,
    nowWall.hour,
    nowWall.minute,
    nowWall.second,
    nowWall.millisecond,
  );
  const results = chronoModule.parse(normalizeTimeWords(input), ref, { forwardDate: true });
  return readResult(input, results, ref, nowWall, opts);
}

function readResult(
  input: string,
  results: ParsedResult[],
  ref: Date,
  nowWall: DateTime,
  opts: TimeInputOptions,
): Date {
  const raw = normalizeTimeWords(input);
  const forms = timeForms(opts.zoneInput);
  const bad = (why?: string, hint?: string) =>
    timeInputError(
      input,
      opts,
      why,
      hint ?? (why ? `${hintFor(why, opts.zoneInput)}accepted forms: ${forms}` : undefined),
    );
  const [result] = results;
  if (!result) throw bad();
  if (results.length > 1) throw bad(`more than one time in it (${results.map((r) => `"${r.text}"`).join(', ')})`);
  const c = result.start;
  const tags = result.tags();

  const before = raw.slice(0, result.index);
  const after = raw.slice(result.index + result.text.length);
  const leftover = `${before} ${after}`.replace(/[\s,.;]+/g, ' ').trim();
  if (leftover !== '') {
    const hour = Number(TRAILING_HOUR.exec(after)?.[1]);
    if (before.trim() === '' && !c.isCertain('hour') && hour >= 1 && hour <= 12)
      throw ambiguousHour(hour, dateOnly(c, nowWall, opts, bad), bad, forms);
    throw bad(`only "${result.text}" reads as a time, not "${leftover}"`);
  }
  if (result.end) throw bad('a range, not one time');
  // chrono reads "last fri" forward (the coming one), and "dec 32" as December 2032: a time
  // that is not the one meant, and a move sent to it, so both are refused.
  if (PAST_WORD.test(raw))
    throw bad(`"${PAST_WORD.exec(raw)?.[0]}" names a time gone by: name the day ahead (fri, dec 3)`);
  if (c.isCertain('month') && !c.isCertain('day'))
    throw bad(`a month without its day ("${result.text}"): name the day (dec 3, or dec 3 ${nowWall.year + 1})`);
  if (tags.has('result/relativeDateAndTime')) {
    // "in 2 hours": a duration from now, not a wall time (exact across a DST change).
    return new Date(opts.now.getTime() + (fieldsAsUtc(c) - localAsUtc(ref)));
  }
  if (c.isCertain('timezoneOffset')) throw bad('a time zone inside the expression is not read');

  const slash = SLASH_DATE.exec(result.text);
  if (slash && Number(slash[1]) <= 12 && Number(slash[2]) <= 12 && slash[1] !== slash[2]) {
    throw dayMonthAmbiguous(Number(slash[1]), Number(slash[2]), slash[3] !== undefined, c, nowWall, opts, bad);
  }
  if (!c.isCertain('hour')) {
    if ([...tags].some((t) => t.startsWith('casualReference/') && !DAY_WORDS.has(t)))
      throw bad('a part of the day this grammar does not know');
    const day = dateOnly(c, nowWall, opts, bad);
    return (opts.endOfDay ? day.plus({ days: 1 }) : day).startOf('day').toJSDate();
  }
  const hour = c.get('hour') ?? 0;
  const exactWords = [...tags].some((t) => EXACT_WORDS.has(t));
  if (!c.isCertain('meridiem') && hour >= 1 && hour <= 12 && !HAS_MINUTES.test(result.text) && !exactWords) {
    throw ambiguousHour(hour, dateOnly(c, nowWall, opts, bad), bad, forms);
  }
  return localToInstant(wallOf(c), opts, input).toJSDate();
}

function hintFor(why: string, zoneInput: string): string {
  if (why.startsWith('a time zone'))
    return `give the zone with ${zoneInput}, or ISO 8601 with an offset (2026-12-01T14:00+01:00); `;
  if (why.startsWith('a part of the day'))
    return 'give a clock time (tomorrow 09:00), or morning, afternoon or evening as a range; ';
  if (why.startsWith('a range') || why.startsWith('more than one')) return 'give one time; ';
  return '';
}

function wallOf(c: ParsedComponents): WallTime {
  const n = (k: 'year' | 'month' | 'day' | 'hour' | 'minute' | 'second') => c.get(k) ?? 0;
  return {
    year: n('year'),
    month: n('month'),
    day: n('day'),
    hour: n('hour'),
    minute: n('minute'),
    second: n('second'),
  };
}

function fieldsAsUtc(c: ParsedComponents): number {
  const w = wallOf(c);
  return Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second ?? 0, c.get('millisecond') ?? 0);
}

function localAsUtc(d: Date): number {
  return Date.UTC(
    d.getFullYear(),
    d.getMonth(),
    d.getDate(),
    d.getHours(),
    d.getMinutes(),
    d.getSeconds(),
    d.getMilliseconds(),
  );
}

/**
 * The day of a date without a time, at its start in the zone. A bare weekday means the next
 * one: chrono (forwardDate) picks today before noon, so today moves on a week.
 */
function dateOnly(c: ParsedComponents, nowWall: DateTime, opts: TimeInputOptions, bad: Bad): DateTime {
  const { year, month, day } = wallOf(c);
  let d = DateTime.fromObject({ year, month, day }, { zone: opts.zone });
  if (!d.isValid) throw bad('no such date');
  const weekdayOnly = c.isCertain('weekday') && !c.isCertain('day') && !c.isCertain('hour');
  if (weekdayOnly && d.hasSame(nowWall, 'day')) d = d.plus({ weeks: 1 });
  return d.startOf('day');
}

type Bad = (why?: string, hint?: string) => Error;

function ambiguousHour(hour: number, day: DateTime, bad: Bad, forms: string): Error {
  const pad = (h: number) => `${String(h).padStart(2, '0')}:00`;
  const [am, pm] = [hour % 12, (hour % 12) + 12];
  const at = (h: number) => day.set({ hour: h, minute: 0 }).toFormat('yyyy-MM-dd HH:mm ZZZZ');
  return bad(
    `the hour "${hour}" could be ${pad(am)} or ${pad(pm)}: ${at(am)} or ${at(pm)}`,
    `write ${pad(am)} or ${pad(pm)} (24-hour), or ${hour}am or ${hour}pm; accepted forms: ${forms}`,
  );
}

function dayMonthAmbiguous(
  first: number,
  second: number,
  yearGiven: boolean,
  c: ParsedComponents,
  nowWall: DateTime,
  opts: TimeInputOptions,
  bad: Bad,
): Error {
  const timed = c.isCertain('hour');
  const reading = (month: number, day: number) => {
    let dt = DateTime.fromObject(
      {
        year: c.get('year') ?? nowWall.year,
        month,
        day,
        hour: timed ? (c.get('hour') ?? 0) : 0,
        minute: timed ? (c.get('minute') ?? 0) : 0,
      },
      { zone: opts.zone },
    );
    if (!yearGiven) {
      dt = dt.set({ year: nowWall.year });
      if (dt.startOf('day') < nowWall.startOf('day')) dt = dt.plus({ years: 1 });
    }
    return dt;
  };
  const [monthFirst, dayFirst] = [reading(first, second), reading(second, first)];
  const show = (dt: DateTime) => `${dt.toFormat(timed ? 'yyyy-MM-dd HH:mm' : 'yyyy-MM-dd')} (${dt.toFormat('d LLLL')})`;
  return bad(
    `day and month could be either way round: ${show(monthFirst)} or ${show(dayFirst)}`,
    `write the month as a word (${monthFirst.toFormat('LLL d').toLowerCase()} or ${dayFirst.toFormat('LLL d').toLowerCase()}) or the date as ${monthFirst.toFormat('yyyy-MM-dd')}; accepted forms: ${timeForms(opts.zoneInput)}`,
  );
}

/**
 * @internal For tests only: forgets the loaded parser, as in a fresh process. The suite runs its files in
 * shared workers (vitest `isolate: false`), so a test of when the parser loads starts from here.
 */
export function forgetTimeExpressions(): void {
  chronoModule = undefined;
}
