/**
 * Time input and display. All zone arithmetic goes through luxon: each instant is
 * formatted with its own offset, so a range across a DST change shows local times right.
 * Times as people say them ("tomorrow 3pm") are read in ./human-time.ts, which loads
 * chrono-node only when these fixed forms do not match.
 */
import { DateTime, IANAZone, Settings } from 'luxon';
import { UsageError } from '../errors.js';

/**
 * Whether the system locale is known to be en-US without asking Intl, from the variables ICU
 * reads for it: the first of LC_ALL, LC_MESSAGES and LANG that is set (even empty) decides, and
 * none, C, POSIX or en_US (with a codeset) is en-US. Luxon otherwise asks Intl for it at the
 * first DateTime, and that first Intl.DateTimeFormat loads ICU's locale data: about 20 ms of CPU
 * in every command that reads or shows a time, where the answer (en-US) is known already.
 */
export function knownEnUsLocale(env: NodeJS.ProcessEnv): boolean {
  const set = [env.LC_ALL, env.LC_MESSAGES, env.LANG].find((v) => v !== undefined);
  return set === undefined || /^(C|POSIX|en_US)(\.[\w-]+)?$/.test(set);
}
// The same locale luxon would find (so the same output), set without asking Intl.
if (knownEnUsLocale(process.env)) Settings.defaultLocale = 'en-US';

/** The accepted forms, for hints; `zoneInput` names where the zone of a local time comes from (the CLI: its zone flag). */
export const timeForms = (zoneInput: string): string =>
  `ISO 8601 with an offset (2026-12-01T14:00Z, 2026-12-01T14:00+01:00), a local date-time read in ${zoneInput} (2026-12-01 14:00), a date (2026-12-01), today, tomorrow or now; ` +
  `also times as people say them, read in ${zoneInput}: tomorrow 15:00, tomorrow 3pm, thu 15:00, tues 3pm, next monday 9:30, dec 3 14:00, thursday, next tuesday afternoon (a range; "first tue afternoon" takes its first free time) ` +
  '(24-hour clock unless am/pm is given; a weekday means the next one; no 3/4-style dates; the whole grammar: docs/time.md)';

/**
 * The system zone, as luxon sees it (TZ is honored). A TZ that names no zone leaves Node in UTC
 * with no zone name: UTC then (the CLI says so once on stderr, commands/action.ts), never `undefined`.
 */
export function systemZone(): string {
  // TZ=UTC (servers, containers, CI, the tests) is answered without asking Intl: its first use
  // loads ICU's time zone data, about 15-20 ms of CPU that a --json command need not spend.
  if (process.env.TZ === 'UTC') return 'UTC';
  // The zone as the user named it: ICU answers an alias with its own older name (TZ=Asia/Kolkata
  // reads back as Asia/Calcutta, Europe/Kyiv as Europe/Kiev), which the user never wrote.
  const named = process.env.TZ?.replace(/^:/, '');
  if (named && /^[A-Za-z]/.test(named) && IANAZone.isValidZone(named)) return spelled(named);
  const name: unknown = Settings.defaultZone.name;
  return typeof name === 'string' && name !== 'undefined' && IANAZone.isValidZone(name) ? name : 'UTC';
}

/** A valid IANA zone (or UTC), defaulting to the system zone; anything else is a UsageError naming the input (`name`). */
export function resolveZone(zone: string | undefined, name: string): string {
  if (zone === undefined || zone === '') return systemZone();
  if (/^(utc|z|gmt)$/i.test(zone)) return 'UTC';
  if (!IANAZone.isValidZone(zone)) {
    throw new UsageError(`unknown time zone "${zone}" for ${name}`, {
      hint: 'use an IANA zone name such as Europe/Berlin, America/New_York or UTC',
    });
  }
  return spelled(zone);
}

/**
 * A valid zone name in its usual letter case ("europe/berlin" -> "Europe/Berlin"), its name kept
 * otherwise: an alias stays the alias the user named (Asia/Kolkata), never ICU's older name.
 */
function spelled(zone: string): string {
  const known = Intl.supportedValuesOf('timeZone');
  if (known.includes(zone)) return zone;
  const lower = zone.toLowerCase();
  const sameLetters = known.find((k) => k.toLowerCase() === lower);
  if (sameLetters) return sameLetters;
  // An alias ICU does not list (it lists Asia/Calcutta, not Asia/Kolkata): each part capitalized when all lower case.
  return zone === lower ? zone.replace(/(^|[/_])([a-z])/g, (_, sep: string, c: string) => sep + c.toUpperCase()) : zone;
}

const WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|([+-])(\d{2}):?(\d{2})?)$/i;
const LOCAL_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2}))?$/i;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
/** Real offsets run from -12:00 to +14:00; anything beyond ±14:00 is a typo, not another instant. */
const MAX_OFFSET_MINUTES = 14 * 60;
const NOT_UNDERSTOOD = 'not a time schedctl understands';

export interface TimeInputOptions {
  zone: string;
  now: Date;
  /** This input as the caller names it in messages: `invalid <name> "…"` (the CLI: its flag). */
  name: string;
  /** Where the zone of a local time comes from, as the caller names it (the CLI: its zone flag), for the hints. */
  zoneInput: string;
  /** For range ends: a whole day (`2026-12-01`, `today`) means up to the start of the next day. */
  endOfDay?: boolean;
  /** For range starts: a part of the day ("tue afternoon") means its start (human-time.ts). */
  rangeStart?: boolean;
  /** The caller can pick in a range (a terminal, or `first …`): its refusal of one says so. */
  picks?: boolean;
}

/** `invalid <name> "…": why`, with the accepted forms (or a more specific hint). */
export function timeInputError(
  input: string,
  opts: Pick<TimeInputOptions, 'name' | 'zoneInput'>,
  why = NOT_UNDERSTOOD,
  hint?: string,
): UsageError {
  return new UsageError(`invalid ${opts.name} "${input}": ${why}`, {
    hint: hint ?? `accepted forms: ${timeForms(opts.zoneInput)}`,
  });
}

/** Only this failure lets a caller try other readings of the input (human-time.ts). */
export function isNotUnderstood(error: unknown): boolean {
  return error instanceof UsageError && error.message.endsWith(`: ${NOT_UNDERSTOOD}`);
}

export function parseTimeInput(input: string, opts: TimeInputOptions): Date {
  const raw = input.trim();
  const lower = raw.toLowerCase();
  const nowZ = DateTime.fromJSDate(opts.now, { zone: opts.zone });
  const day = (d: DateTime) => (opts.endOfDay ? d.startOf('day').plus({ days: 1 }) : d.startOf('day'));

  if (lower === 'now') return new Date(opts.now.getTime());
  if (lower === 'today') return day(nowZ).toJSDate();
  if (lower === 'tomorrow') return day(nowZ.plus({ days: 1 })).toJSDate();
  const withOffset = WITH_OFFSET.exec(raw);
  if (withOffset) {
    const [, , , , sign, hh = '00', mm = '00'] = withOffset;
    if (sign !== undefined) checkOffset(input, opts, sign, hh, mm);
    return valid(input, opts, DateTime.fromISO(raw, { setZone: true })).toJSDate();
  }
  const local = LOCAL_DATE_TIME.exec(raw);
  if (local) {
    const n = (i: number) => Number(local[i] ?? 0);
    return localToInstant(
      { year: n(1), month: n(2), day: n(3), hour: n(4), minute: n(5), second: n(6) },
      opts,
      input,
    ).toJSDate();
  }
  if (DATE_ONLY.test(raw)) {
    const d = DateTime.fromISO(raw, { zone: opts.zone });
    if (!d.isValid) throw timeInputError(input, opts, 'no such date');
    return day(d).toJSDate();
  }
  throw timeInputError(input, opts);
}

function valid(input: string, opts: TimeInputOptions, dt: DateTime): DateTime {
  if (!dt.isValid) throw timeInputError(input, opts, dt.invalidExplanation ?? 'no such date or time');
  return dt;
}

/** luxon reads `+25:00` as a real offset, i.e. another instant; refuse it instead. */
function checkOffset(input: string, opts: TimeInputOptions, sign: string, hh: string, mm: string): void {
  const minutes = Number(hh) * 60 + Number(mm);
  const shown = `${sign}${hh}:${mm}`;
  if (Number(mm) > 59) throw timeInputError(input, opts, `offset ${shown} is out of range (minutes 00 to 59)`);
  if (minutes > MAX_OFFSET_MINUTES)
    throw timeInputError(input, opts, `offset ${shown} is out of range (-14:00 to +14:00)`);
}

export interface WallTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second?: number;
}

/**
 * The instant a wall-clock time names in a zone. A time a DST change skips does not exist,
 * and one it repeats (clocks go back) names two instants: both are refused rather than
 * letting luxon pick one the user did not write. Candidates are the wall time at the
 * offsets in force a day before and a day after; a candidate holds if the zone really
 * has that offset at that instant.
 */
export function localToInstant(
  wall: WallTime,
  opts: Pick<TimeInputOptions, 'zone' | 'name' | 'zoneInput'>,
  input: string,
): DateTime {
  const { zone } = opts;
  // luxon reads hour 24 as the next day's 00:00; a typo is likelier than that intent.
  if (wall.hour > 23) throw timeInputError(input, opts, 'no such time (hours run from 00 to 23)');
  const dt = DateTime.fromObject({ ...wall, second: wall.second ?? 0, millisecond: 0 }, { zone });
  if (!dt.isValid) throw timeInputError(input, opts, dt.invalidExplanation ?? 'no such date or time');
  const asUtc = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second ?? 0);
  const offsetAt = (ms: number) => DateTime.fromMillis(ms, { zone }).offset;
  const DAY = 86_400_000;
  const offsets = new Set([offsetAt(asUtc - DAY), offsetAt(asUtc + DAY), dt.offset]);
  const instants = [...offsets]
    .map((offset) => asUtc - offset * 60_000)
    .filter((ms) => offsetAt(ms) * 60_000 === asUtc - ms)
    .sort((a, b) => a - b);
  const [first] = instants;
  if (first === undefined)
    throw timeInputError(input, opts, `that local time does not exist in ${zone} (clocks go forward at a DST change)`);
  if (instants.length > 1) {
    const format = wall.second ? "yyyy-MM-dd'T'HH:mm:ssZZ" : "yyyy-MM-dd'T'HH:mmZZ";
    const shown = instants.map((ms) => DateTime.fromMillis(ms, { zone }).toFormat(format));
    throw timeInputError(
      input,
      opts,
      `ambiguous in ${zone} (clocks go back): ${shown.join(' or ')}`,
      `add the offset you mean: ${shown.join(' or ')}`,
    );
  }
  return DateTime.fromMillis(first, { zone });
}

/** A start time must not be in the past: `<name> 2026-11-20 10:00 CET is in the past (now 2026-11-23 09:12 CET)`. */
export function requireFuture(date: Date, now: Date, name: string, zone: string): Date {
  if (date.getTime() >= now.getTime()) return date;
  let when = formatInZone(date, zone);
  let current = formatInZone(now, zone);
  if (when === current) {
    // Same minute: show seconds so the two do not read alike.
    when = toZone(date, zone).toFormat('yyyy-MM-dd HH:mm:ss ZZZZ');
    current = toZone(now, zone).toFormat('yyyy-MM-dd HH:mm:ss ZZZZ');
  }
  throw new UsageError(`${name} ${when} is in the past (now ${current})`, {
    hint: `give a time after now for ${name}`,
  });
}

/**
 * The server's clock: the local clock plus the skew measured from the server's Date header
 * (server minus local). Used for countdowns such as a reservation's expiresAt, which the
 * server measures on its own clock.
 */
export function serverNow(localNow: Date, skewMs: number): Date {
  return new Date(localNow.getTime() + (Number.isFinite(skewMs) ? skewMs : 0));
}

/** `2026-12-01 14:00 CET`, with the instant's own offset in that zone; `unknown time` for an unreadable instant. */
export function formatInZone(iso: string | Date, zone: string): string {
  const dt = toZone(iso, zone);
  return dt.isValid ? dt.toFormat('yyyy-MM-dd HH:mm ZZZZ') : 'unknown time';
}

/** `2026-12-01 14:00 CET (2026-12-01 13:00 UTC)`; once only when the zone shows UTC time already. */
export function formatWithUtc(iso: string | Date, zone: string): string {
  const local = formatInZone(iso, zone);
  const dt = toZone(iso, zone);
  return !dt.isValid || dt.offset === 0 ? local : `${local} (${formatUtc(iso)})`;
}

/** `2026-12-01 13:00 UTC`. */
export function formatUtc(iso: string | Date): string {
  return toZone(iso, 'UTC').toFormat("yyyy-MM-dd HH:mm 'UTC'");
}

/** The calendar day of an instant in a zone, `2026-12-01`: the key for grouping by day. */
export function dayKey(iso: string | Date, zone: string): string {
  return toZone(iso, zone).toFormat('yyyy-MM-dd');
}

/** `Tue 1 Dec` */
export function dayLabel(iso: string | Date, zone: string): string {
  return toZone(iso, zone).toFormat('ccc d LLL');
}

/** `14:00` in the zone, with this instant's own offset. */
export function timeLabel(iso: string | Date, zone: string): string {
  return toZone(iso, zone).toFormat('HH:mm');
}

/** `in 9 min`, `in 2 h 5 min`, `3 min ago`; `unknown` for an unreadable instant. */
export function relativeMinutes(iso: string | Date, now: Date): string {
  const ms = toZone(iso, 'UTC').toMillis() - now.getTime();
  if (!Number.isFinite(ms)) return 'unknown';
  const total = Math.round(Math.abs(ms) / 60_000);
  const h = Math.floor(total / 60);
  const text = h > 0 ? `${h} h ${total % 60} min` : `${total} min`;
  return ms >= 0 ? `in ${text}` : `${text} ago`;
}

function toZone(iso: string | Date, zone: string): DateTime {
  const dt = typeof iso === 'string' ? DateTime.fromISO(iso, { setZone: true }) : DateTime.fromJSDate(iso);
  return dt.setZone(zone);
}
