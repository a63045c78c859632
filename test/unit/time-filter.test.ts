import { describe, expect, it } from 'vitest';
import { timeMatches } from '../../src/ui/time-filter.js';

const day = (hhmm: string) => `2026-12-01T${hhmm}:00.000Z`;
const TIMES = ['08:00', '09:30', '12:00', '14:00', '14:30', '17:00', '20:30'].map(day);
const found = (term: string, zone = 'UTC') =>
  TIMES.filter((s) => timeMatches(term, s, zone)).map((s) => s.slice(11, 16));

describe('timeMatches: typing in the time list jumps by time', () => {
  it('reads an hour, a clock time, am/pm and noon', () => {
    expect(found('')).toEqual(['08:00', '09:30', '12:00', '14:00', '14:30', '17:00', '20:30']);
    expect(found('14')).toEqual(['14:00', '14:30']);
    expect(found('2pm')).toEqual(['14:00', '14:30']);
    expect(found('2:30pm')).toEqual(['14:30']);
    expect(found('14:30')).toEqual(['14:30']);
    expect(found('1430')).toEqual(['14:30']);
    expect(found('9.30')).toEqual(['09:30']);
    expect(found('9am')).toEqual(['09:30']);
    expect(found('8')).toEqual(['08:00', '20:30']);
    expect(found('12')).toEqual(['12:00']);
    expect(found('12am')).toEqual([]);
    expect(found('12pm')).toEqual(['12:00']);
    expect(found('noon')).toEqual(['12:00']);
    expect(found('13pm')).toEqual([]);
    expect(found(' 17 ')).toEqual(['17:00']);
  });
  it('reads a part of the day', () => {
    expect(found('morning')).toEqual(['08:00', '09:30']);
    expect(found('Afternoon')).toEqual(['12:00', '14:00', '14:30']);
    expect(found('evening')).toEqual(['17:00', '20:30']);
  });
  it('matches the rest against the time as shown, in the zone', () => {
    expect(found('14:3')).toEqual(['14:30']);
    expect(found('xyz')).toEqual([]);
    expect(found('15', 'Europe/Berlin')).toEqual(['14:00', '14:30']);
  });
});
