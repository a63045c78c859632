import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import {
  dayKey,
  formatInZone,
  parseTimeInput,
  relativeMinutes,
  requireFuture,
  resolveZone,
  serverNow,
  systemZone,
  timeForms,
  timeLabel,
} from '../../src/domain/time.js';

const now = new Date('2026-03-28T22:30:00Z'); // 23:30 in Berlin, the night before DST starts there
const berlin = { zone: 'Europe/Berlin', now, name: '--start', zoneInput: '--tz' };

describe('resolveZone', () => {
  it('accepts IANA names and UTC, defaults to the system zone', () => {
    expect(resolveZone('Europe/Berlin', '--tz')).toBe('Europe/Berlin');
    expect(resolveZone('utc', '--tz')).toBe('UTC');
    // The system zone, exactly (TZ is honored; the test run sets none, so it is the machine's).
    expect(resolveZone(undefined, '--tz')).toBe(new Intl.DateTimeFormat().resolvedOptions().timeZone);
  });
  it('reads the system zone from TZ: UTC without asking Intl, any other zone as the user named it', () => {
    const before = process.env.TZ;
    try {
      process.env.TZ = 'UTC';
      expect(systemZone()).toBe('UTC');
      // Read from TZ itself, not from Intl (Node applies a new TZ to Intl in its main thread only,
      // and ICU names an alias by its older name): the same in vitest's forks and Stryker's threads.
      process.env.TZ = 'Europe/Berlin';
      expect(systemZone()).toBe('Europe/Berlin');
      process.env.TZ = 'Asia/Kolkata';
      expect(systemZone()).toBe('Asia/Kolkata');
    } finally {
      if (before === undefined) delete process.env.TZ;
      else process.env.TZ = before;
    }
  });
  it('rejects an unknown zone naming the flag', () => {
    expect(() => resolveZone('Mars/Olympus', '--lead-tz')).toThrow(/--lead-tz/);
    expect(() => resolveZone('Mars/Olympus', '--tz')).toThrow(UsageError);
  });
});

describe('parseTimeInput', () => {
  it('reads ISO 8601 with Z or an offset as that instant', () => {
    expect(parseTimeInput('2026-12-01T14:00:00Z', berlin).toISOString()).toBe('2026-12-01T14:00:00.000Z');
    expect(parseTimeInput('2026-12-01T14:00+05:30', berlin).toISOString()).toBe('2026-12-01T08:30:00.000Z');
    expect(parseTimeInput('2026-12-01T14:00:00.000-05:00', berlin).toISOString()).toBe('2026-12-01T19:00:00.000Z');
  });
  it('reads a local date-time in the zone, with a space or a T', () => {
    expect(parseTimeInput('2026-12-01 14:00', berlin).toISOString()).toBe('2026-12-01T13:00:00.000Z');
    expect(parseTimeInput('2026-07-01T14:00', berlin).toISOString()).toBe('2026-07-01T12:00:00.000Z');
  });
  it('reads a date as the start of that day in the zone, or the next day for range ends', () => {
    expect(parseTimeInput('2026-12-01', berlin).toISOString()).toBe('2026-11-30T23:00:00.000Z');
    expect(parseTimeInput('2026-12-01', { ...berlin, endOfDay: true }).toISOString()).toBe('2026-12-01T23:00:00.000Z');
  });
  it('reads today, tomorrow and now relative to the clock in the zone', () => {
    expect(parseTimeInput('today', berlin).toISOString()).toBe('2026-03-27T23:00:00.000Z');
    // Tomorrow (29 March) begins before the DST change, at 00:00 CET.
    expect(parseTimeInput('tomorrow', berlin).toISOString()).toBe('2026-03-28T23:00:00.000Z');
    expect(parseTimeInput('tomorrow', { ...berlin, endOfDay: true }).toISOString()).toBe('2026-03-29T22:00:00.000Z');
    expect(parseTimeInput('NOW', berlin).toISOString()).toBe(now.toISOString());
  });
  it('uses the offset in force at that date across a DST change', () => {
    expect(parseTimeInput('2026-03-29 01:30', berlin).toISOString()).toBe('2026-03-29T00:30:00.000Z');
    expect(parseTimeInput('2026-03-29 03:30', berlin).toISOString()).toBe('2026-03-29T01:30:00.000Z');
  });
  it('refuses a local time that a DST change skips', () => {
    expect(() => parseTimeInput('2026-03-29 02:30', berlin)).toThrow(/does not exist/);
  });
  it('rejects anything else naming the flag and the accepted forms', () => {
    for (const bad of ['next tuesday', '2026-13-01', '2026-02-30 10:00', '14:00', '', '2026-12-01T25:00Z']) {
      let error: unknown;
      try {
        parseTimeInput(bad, { ...berlin, name: '--from' });
      } catch (e) {
        error = e;
      }
      expect(error, bad).toBeInstanceOf(UsageError);
      expect((error as UsageError).message).toContain('--from');
      expect((error as UsageError).hint).toContain('accepted forms');
    }
  });
});

describe('formatting', () => {
  it('formats each instant with its own offset (DST-correct)', () => {
    expect(formatInZone('2026-03-29T00:30:00Z', 'Europe/Berlin')).toMatch(/^2026-03-29 01:30 /);
    expect(formatInZone('2026-03-29T01:30:00Z', 'Europe/Berlin')).toMatch(/^2026-03-29 03:30 /);
    expect(timeLabel('2026-11-01T13:00:00Z', 'America/New_York')).toBe('08:00');
    expect(timeLabel('2026-10-31T13:00:00Z', 'America/New_York')).toBe('09:00');
  });
  it('keys days by the calendar day in the zone', () => {
    expect(dayKey('2026-12-01T23:30:00Z', 'UTC')).toBe('2026-12-01');
    expect(dayKey('2026-12-01T23:30:00Z', 'Europe/Berlin')).toBe('2026-12-02');
  });
  it('says how far away an instant is', () => {
    expect(relativeMinutes('2026-03-28T22:40:00Z', now)).toBe('in 10 min');
    expect(relativeMinutes('2026-03-29T00:35:00Z', now)).toBe('in 2 h 5 min');
    expect(relativeMinutes('2026-03-28T22:27:00Z', now)).toBe('3 min ago');
  });
});

/** The UsageError a call throws (fails the test when it does not throw one). */
function usageError(fn: () => unknown): UsageError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(UsageError);
    return e as UsageError;
  }
  throw new Error('expected a UsageError');
}

describe('offsets', () => {
  it('accepts offsets from -14:00 to +14:00, with or without a colon', () => {
    expect(parseTimeInput('2026-12-01T14:00+14:00', berlin).toISOString()).toBe('2026-12-01T00:00:00.000Z');
    expect(parseTimeInput('2026-12-01T14:00-14:00', berlin).toISOString()).toBe('2026-12-02T04:00:00.000Z');
    expect(parseTimeInput('2026-12-01T14:00+0545', berlin).toISOString()).toBe('2026-12-01T08:15:00.000Z');
    expect(parseTimeInput('2026-12-01T14:00-00:00', berlin).toISOString()).toBe('2026-12-01T14:00:00.000Z');
  });
  it('refuses an offset out of range instead of reading it as another instant', () => {
    const e = usageError(() => parseTimeInput('2026-12-01T14:00+25:00', berlin));
    expect(e.message).toBe(
      'invalid --start "2026-12-01T14:00+25:00": offset +25:00 is out of range (-14:00 to +14:00)',
    );
    for (const bad of [
      '2026-12-01T14:00+24:00',
      '2026-12-01T14:00-15:00',
      '2026-12-01T14:00+14:30',
      '2026-12-01T14:00:00-1500',
    ]) {
      expect(usageError(() => parseTimeInput(bad, { ...berlin, name: '--to' })).message, bad).toMatch(
        /^invalid --to ".*": offset [+-]\d\d:\d\d is out of range \(-14:00 to \+14:00\)$/,
      );
    }
    expect(usageError(() => parseTimeInput('2026-12-01T14:00+05:60', berlin)).message).toContain(
      'offset +05:60 is out of range (minutes 00 to 59)',
    );
  });
});

describe('DST folds', () => {
  it('refuses a local time that occurs twice, showing both instants and how to pick one', () => {
    const e = usageError(() => parseTimeInput('2026-10-25 02:30', berlin));
    expect(e.message).toBe(
      'invalid --start "2026-10-25 02:30": ambiguous in Europe/Berlin (clocks go back): 2026-10-25T02:30+02:00 or 2026-10-25T02:30+01:00',
    );
    expect(e.hint).toContain('add the offset you mean');
    const chicago = usageError(() => parseTimeInput('2026-11-01T01:30', { ...berlin, zone: 'America/Chicago' }));
    expect(chicago.message).toContain(
      'ambiguous in America/Chicago (clocks go back): 2026-11-01T01:30-05:00 or 2026-11-01T01:30-06:00',
    );
    const seconds = usageError(() => parseTimeInput('2026-10-25 02:30:15', berlin));
    expect(seconds.message).toContain('2026-10-25T02:30:15+02:00 or 2026-10-25T02:30:15+01:00');
  });
  it('reads the times around a fold, and either instant of it once the offset is given', () => {
    expect(parseTimeInput('2026-10-25 01:59', berlin).toISOString()).toBe('2026-10-24T23:59:00.000Z');
    expect(parseTimeInput('2026-10-25 03:00', berlin).toISOString()).toBe('2026-10-25T02:00:00.000Z');
    expect(parseTimeInput('2026-10-25T02:30+02:00', berlin).toISOString()).toBe('2026-10-25T00:30:00.000Z');
    expect(parseTimeInput('2026-10-25T02:30+01:00', berlin).toISOString()).toBe('2026-10-25T01:30:00.000Z');
    expect(parseTimeInput('2026-11-01 02:00', { ...berlin, zone: 'America/Chicago' }).toISOString()).toBe(
      '2026-11-01T08:00:00.000Z',
    );
  });
  it('has no folds or gaps in zones without DST', () => {
    expect(parseTimeInput('2026-10-25 02:30', { ...berlin, zone: 'UTC' }).toISOString()).toBe(
      '2026-10-25T02:30:00.000Z',
    );
    expect(parseTimeInput('2026-03-08 02:30', { ...berlin, zone: 'Asia/Kolkata' }).toISOString()).toBe(
      '2026-03-07T21:00:00.000Z',
    );
  });
  it('refuses a skipped local time in any DST zone', () => {
    expect(
      usageError(() => parseTimeInput('2026-03-08 02:30', { ...berlin, zone: 'America/Chicago' })).message,
    ).toContain('does not exist in America/Chicago');
    expect(parseTimeInput('2026-03-08 03:00', { ...berlin, zone: 'America/Chicago' }).toISOString()).toBe(
      '2026-03-08T08:00:00.000Z',
    );
  });
  it('refuses hour 24 and other impossible fields', () => {
    for (const bad of ['2026-12-01 24:00', '2026-12-01 12:60', '2026-11-31 10:00']) {
      expect(usageError(() => parseTimeInput(bad, berlin)).message, bad).toMatch(/^invalid --start "/);
    }
  });
});

describe('requireFuture', () => {
  const now = new Date('2026-11-23T08:12:00Z'); // 09:12 in Berlin
  it('refuses a time before now, naming it and the current time in the zone', () => {
    const past = new Date('2026-11-20T09:00:00Z');
    const e = usageError(() => requireFuture(past, now, '--start', 'Europe/Berlin'));
    expect(e.message).toBe(
      `--start ${formatInZone(past, 'Europe/Berlin')} is in the past (now ${formatInZone(now, 'Europe/Berlin')})`,
    );
    expect(e.message).toMatch(/^--start 2026-11-20 10:00 \S+ is in the past \(now 2026-11-23 09:12 \S+\)$/);
    expect(usageError(() => requireFuture(past, now, '--slot', 'America/Chicago')).message).toMatch(
      /^--slot 2026-11-20 03:00 \S+ is in the past \(now 2026-11-23 02:12 \S+\)$/,
    );
  });
  it('shows seconds when the two times fall in the same minute', () => {
    const e = usageError(() =>
      requireFuture(new Date('2026-11-23T08:11:59Z'), new Date('2026-11-23T08:11:59.500Z'), '--start', 'UTC'),
    );
    expect(e.message).toMatch(/^--start 2026-11-23 08:11:59 \S+ is in the past \(now 2026-11-23 08:11:59 \S+\)$/);
  });
  it('returns a time at or after now as it is', () => {
    const later = new Date('2026-11-23T08:13:00Z');
    expect(requireFuture(later, now, '--start', 'Asia/Kolkata')).toBe(later);
    expect(requireFuture(new Date(now.getTime()), now, '--start', 'UTC').getTime()).toBe(now.getTime());
  });
});

describe('unreadable instants and the server clock', () => {
  it('says unknown instead of NaN or Invalid DateTime', () => {
    expect(relativeMinutes('not a time', now)).toBe('unknown');
    expect(relativeMinutes(new Date(Number.NaN), now)).toBe('unknown');
    expect(formatInZone('garbage', 'Europe/Berlin')).toBe('unknown time');
    expect(formatInZone(new Date(Number.NaN), 'UTC')).toBe('unknown time');
    expect(formatInZone('2026-12-01T13:00:00Z', 'Asia/Kolkata')).toMatch(/^2026-12-01 18:30 /);
  });
  it('puts the server clock at the local clock plus the measured skew', () => {
    expect(serverNow(now, 90_000).toISOString()).toBe('2026-03-28T22:31:30.000Z');
    expect(serverNow(now, -5_000).toISOString()).toBe('2026-03-28T22:29:55.000Z');
    expect(serverNow(now, Number.NaN).toISOString()).toBe(now.toISOString());
  });
});

describe('timeForms', () => {
  it('lists the fixed forms and the spoken ones, naming the zone input as the caller does', () => {
    for (const form of [
      '2026-12-01T14:00+01:00',
      '2026-12-01 14:00',
      'tomorrow 15:00',
      'tomorrow 3pm',
      'thu 15:00',
      'next monday 9:30',
      'dec 3 14:00',
    ]) {
      expect(timeForms('--tz')).toContain(form);
    }
    expect(timeForms('--tz')).toContain('a local date-time read in --tz (');
  });
});
