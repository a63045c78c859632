/**
 * The fixed time forms' edges and formatters (src/domain/time.ts), by name: which zone names mean
 * UTC, hours and offsets out of range, the formatters of an instant in a zone and in UTC, and
 * "in"/"ago" at the very instant. Every instant is fixed: no test depends on today.
 */
import { describe, expect, it } from 'vitest';
import {
  dayLabel,
  formatUtc,
  formatWithUtc,
  parseTimeInput,
  relativeMinutes,
  resolveZone,
} from '../../src/domain/time.js';
import type { UsageError } from '../../src/errors.js';

const OPTS = { zone: 'Europe/Berlin', now: new Date('2026-03-04T10:30:00Z'), name: '--start', zoneInput: '--tz' };
const refusal = (input: string) => {
  try {
    parseTimeInput(input, OPTS);
  } catch (error) {
    return (error as UsageError).message;
  }
  throw new Error(`"${input}" was accepted`);
};

describe('zones', () => {
  it('UTC, Z and GMT, in any case, are UTC; only the whole name', () => {
    for (const z of ['utc', 'UTC', 'z', 'Z', 'gmt', 'GMT']) expect(resolveZone(z, '--tz')).toBe('UTC');
    // A name that only starts or ends like one is not it.
    expect(() => resolveZone('utc+1', '--tz')).toThrow('unknown time zone "utc+1" for --tz');
    expect(() => resolveZone('xgmt', '--tz')).toThrow('unknown time zone "xgmt" for --tz');
  });

  it('an unknown zone says how to name one; an empty one is the system zone', () => {
    try {
      resolveZone('Mars/Olympus', '--lead-tz');
      throw new Error('accepted');
    } catch (error) {
      expect((error as UsageError).message).toBe('unknown time zone "Mars/Olympus" for --lead-tz');
      expect((error as UsageError).hint).toBe('use an IANA zone name such as Europe/Berlin, America/New_York or UTC');
    }
    expect(resolveZone('', '--tz')).toBe(resolveZone(undefined, '--tz'));
  });
});

describe('fixed forms out of range', () => {
  it('hour 24 is refused, 23 is read', () => {
    expect(refusal('2026-03-05 24:00')).toBe(
      'invalid --start "2026-03-05 24:00": no such time (hours run from 00 to 23)',
    );
    expect(parseTimeInput('2026-03-05 23:00', OPTS).toISOString()).toBe('2026-03-05T22:00:00.000Z');
  });

  it('offset minutes run to 59', () => {
    expect(refusal('2026-03-05T10:00+01:60')).toBe(
      'invalid --start "2026-03-05T10:00+01:60": offset +01:60 is out of range (minutes 00 to 59)',
    );
    expect(parseTimeInput('2026-03-05T10:00+01:59', OPTS).toISOString()).toBe('2026-03-05T08:01:00.000Z');
    // The offset given is the instant's, whatever the zone.
    expect(parseTimeInput('2026-03-05T10:00-05:00', OPTS).toISOString()).toBe('2026-03-05T15:00:00.000Z');
  });
});

describe('formatters', () => {
  it('an instant in a zone, with its UTC time unless the zone shows UTC already', () => {
    expect(formatWithUtc('2026-12-01T13:00:00Z', 'Europe/Berlin')).toBe(
      '2026-12-01 14:00 GMT+1 (2026-12-01 13:00 UTC)',
    );
    expect(formatWithUtc('2026-12-01T13:00:00Z', 'UTC')).toBe('2026-12-01 13:00 UTC');
    expect(formatWithUtc('not a time', 'UTC')).toBe('unknown time');
    expect(formatUtc(new Date('2026-12-01T13:05:00Z'))).toBe('2026-12-01 13:05 UTC');
    expect(formatUtc('2026-12-01T23:30:00-02:00')).toBe('2026-12-02 01:30 UTC');
  });

  it('the day of an instant in a zone', () => {
    expect(dayLabel('2026-12-01T23:30:00Z', 'UTC')).toBe('Tue 1 Dec');
    expect(dayLabel('2026-12-01T23:30:00Z', 'Europe/Berlin')).toBe('Wed 2 Dec');
  });

  it('"in" at the very instant and after it, "ago" before', () => {
    const now = new Date('2026-12-01T13:00:00Z');
    expect(relativeMinutes('2026-12-01T13:00:00Z', now)).toBe('in 0 min');
    expect(relativeMinutes('2026-12-01T15:05:00Z', now)).toBe('in 2 h 5 min');
    expect(relativeMinutes('2026-12-01T12:57:00Z', now)).toBe('3 min ago');
  });
});
