/**
 * Time input and display. All zone arithmetic goes through luxon: each instant is
 * formatted with its own offset, so a range across a DST change shows local times right.
 */
import { DateTime, IANAZone, Settings } from 'luxon';
import { UsageError } from '../errors.js';

export const TIME_FORMS =
  'ISO 8601 with an offset (2026-12-01T14:00:00Z, 2026-12-01T14:00+01:00), a local date-time read in --tz (2026-12-01 14:00 or 2026-12-01T14:00), a date (2026-12-01), today, tomorrow or now';

/** The system zone, as luxon sees it (TZ is honored). */
export function systemZone(): string {
  return Settings.defaultZone.name;
}

/** A valid IANA zone (or UTC), defaulting to the system zone; anything else is a UsageError naming the flag. */
export function resolveZone(zone: string | undefined, flag: string): string {
  if (zone === undefined || zone === '') return systemZone();
  if (/^(utc|z|gmt)$/i.test(zone)) return 'UTC';
  if (!IANAZone.isValidZone(zone)) {
    throw new UsageError(`unknown time zone "${zone}" for ${flag}`, {
      hint: 'use an IANA zone name such as Europe/Berlin, America/New_York or UTC',
    });
  }
  // Canonical spelling (e.g. "europe/berlin" -> "Europe/Berlin").
  return IANAZone.create(zone).name;
}

const WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}(:?\d{2})?)$/i;
const LOCAL_DATE_TIME = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(:\d{2})?)$/i;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

export interface TimeInputOptions {
  zone: string;
  now: Date;
  flag: string;
  /** For range ends: a whole day (`2026-12-01`, `today`) means up to the start of the next day. */
  endOfDay?: boolean;
}

export function parseTimeInput(input: string, opts: TimeInputOptions): Date {
  const raw = input.trim();
  const bad = (why = 'not a time schedctl understands') =>
    new UsageError(`invalid ${opts.flag} "${input}": ${why}`, { hint: `accepted forms: ${TIME_FORMS}` });
  const lower = raw.toLowerCase();
  const nowZ = DateTime.fromJSDate(opts.now, { zone: opts.zone });
  const day = (d: DateTime) => (opts.endOfDay ? d.startOf('day').plus({ days: 1 }) : d.startOf('day'));

  let dt: DateTime;
  if (lower === 'now') return new Date(opts.now.getTime());
  if (lower === 'today') dt = day(nowZ);
  else if (lower === 'tomorrow') dt = day(nowZ.plus({ days: 1 }));
  else if (WITH_OFFSET.test(raw)) dt = DateTime.fromISO(raw, { setZone: true });
  else if (LOCAL_DATE_TIME.test(raw)) dt = DateTime.fromISO(raw.replace(' ', 'T'), { zone: opts.zone });
  else if (DATE_ONLY.test(raw)) {
    const d = DateTime.fromISO(raw, { zone: opts.zone });
    if (!d.isValid) throw bad('no such date');
    dt = day(d);
  } else throw bad();
  if (!dt.isValid) throw bad(dt.invalidExplanation ?? 'no such date or time');
  if (LOCAL_DATE_TIME.test(raw)) {
    // A local time skipped by a DST change (02:30 on a spring-forward night) does not exist:
    // luxon shifts it forward; say so rather than booking a time the user did not write.
    const [, , hm] = LOCAL_DATE_TIME.exec(raw)!;
    if (dt.toFormat(hm!.length > 5 ? 'HH:mm:ss' : 'HH:mm') !== hm) throw bad(`that local time does not exist in ${opts.zone} (a DST change)`);
  }
  return dt.toJSDate();
}

/** `2026-12-01 14:00 CET`, with the instant's own offset in that zone. */
export function formatInZone(iso: string | Date, zone: string): string {
  return toZone(iso, zone).toFormat('yyyy-MM-dd HH:mm ZZZZ');
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

/** `in 9 min`, `in 2 h 5 min`, `3 min ago`. */
export function relativeMinutes(iso: string | Date, now: Date): string {
  const ms = toZone(iso, 'UTC').toMillis() - now.getTime();
  const total = Math.round(Math.abs(ms) / 60_000);
  const h = Math.floor(total / 60);
  const text = h > 0 ? `${h} h ${total % 60} min` : `${total} min`;
  return ms >= 0 ? `in ${text}` : `${text} ago`;
}

/** An instant as the API writes it: UTC ISO 8601 with milliseconds. */
export function toIso(date: Date): string {
  return date.toISOString();
}

function toZone(iso: string | Date, zone: string): DateTime {
  const dt = typeof iso === 'string' ? DateTime.fromISO(iso, { setZone: true }) : DateTime.fromJSDate(iso);
  return dt.setZone(zone);
}
