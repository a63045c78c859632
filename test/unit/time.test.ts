import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { dayKey, formatInZone, parseTimeInput, relativeMinutes, resolveZone, timeLabel } from '../../src/domain/time.js';

const now = new Date('2026-03-28T22:30:00Z'); // 23:30 in Berlin, the night before DST starts there
const berlin = { zone: 'Europe/Berlin', now, flag: '--start' };

describe('resolveZone', () => {
  it('accepts IANA names and UTC, defaults to the system zone', () => {
    expect(resolveZone('Europe/Berlin', '--tz')).toBe('Europe/Berlin');
    expect(resolveZone('utc', '--tz')).toBe('UTC');
    expect(resolveZone(undefined, '--tz')).toBeTruthy();
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
        parseTimeInput(bad, { ...berlin, flag: '--from' });
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
