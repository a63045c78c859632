import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseTimeExpression } from '../../src/domain/human-time.js';
import type { TimeInputOptions } from '../../src/domain/time.js';
import { UsageError } from '../../src/errors.js';

// A fixed clock: Thursday 2026-11-19 14:30 UTC = 15:30 in Berlin, 08:30 in Chicago, 20:00 in Kolkata.
const now = new Date('2026-11-19T14:30:00Z');
const at = (zone: string, extra: Partial<TimeInputOptions> = {}): TimeInputOptions => ({
  zone,
  now,
  name: '--start',
  zoneInput: '--tz',
  ...extra,
});
const berlin = at('Europe/Berlin');

const iso = async (input: string, opts: TimeInputOptions) => (await parseTimeExpression(input, opts)).toISOString();

/** The UsageError a parse rejects with (fails the test when it resolves). */
async function refusal(input: string, opts: TimeInputOptions): Promise<UsageError> {
  const error = await parseTimeExpression(input, opts).then(
    (d) => new Error(`expected "${input}" to be refused, got ${d.toISOString()}`),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(UsageError);
  return error as UsageError;
}

describe('parseTimeExpression: fixed forms first', () => {
  it('reads every fixed form as parseTimeInput does', async () => {
    expect(await iso('2026-12-01T14:00:00Z', berlin)).toBe('2026-12-01T14:00:00.000Z');
    expect(await iso('2026-12-01 14:00', berlin)).toBe('2026-12-01T13:00:00.000Z');
    expect(await iso('2026-12-01', at('Asia/Kolkata', { rangeStart: true }))).toBe('2026-11-30T18:30:00.000Z');
    expect(await iso('today', at('America/Chicago', { rangeStart: true }))).toBe('2026-11-19T06:00:00.000Z');
    expect(await iso('now', berlin)).toBe(now.toISOString());
  });
  it('keeps the fixed forms’ own refusals rather than guessing with chrono', async () => {
    expect((await refusal('2026-12-01T14:00+25:00', berlin)).message).toBe(
      'invalid --start "2026-12-01T14:00+25:00": offset +25:00 is out of range (-14:00 to +14:00)',
    );
    expect((await refusal('2026-02-30 10:00', berlin)).message).toMatch(/^invalid --start "2026-02-30 10:00": /);
    expect((await refusal('2026-10-25 02:30', berlin)).message).toContain(
      'ambiguous in Europe/Berlin (clocks go back)',
    );
  });
});

describe('parseTimeExpression: times as people say them', () => {
  it('reads a day word or weekday with a time in the zone', async () => {
    expect(await iso('tomorrow 15:00', berlin)).toBe('2026-11-20T14:00:00.000Z');
    expect(await iso('tomorrow 3pm', berlin)).toBe('2026-11-20T14:00:00.000Z');
    expect(await iso('Tomorrow 3 PM', at('America/Chicago'))).toBe('2026-11-20T21:00:00.000Z');
    expect(await iso('tomorrow 15:00', at('Asia/Kolkata'))).toBe('2026-11-20T09:30:00.000Z');
    expect(await iso('thu 9am', at('UTC'))).toBe('2026-11-26T09:00:00.000Z');
    expect(await iso('next monday 9:30', berlin)).toBe('2026-11-23T08:30:00.000Z');
    expect(await iso('mon 9:30', at('America/Chicago'))).toBe('2026-11-23T15:30:00.000Z');
    expect(await iso('dec 3 14:00', berlin)).toBe('2026-12-03T13:00:00.000Z');
    expect(await iso('3 dec 2pm', at('UTC'))).toBe('2026-12-03T14:00:00.000Z');
    expect(await iso('noon tomorrow', berlin)).toBe('2026-11-20T11:00:00.000Z');
  });
  it('takes "tomorrow" and weekdays from the calendar day in the zone, not in UTC', async () => {
    // 2026-11-19 20:00 UTC is already Friday 01:30 in Kolkata.
    const late = at('Asia/Kolkata', { now: new Date('2026-11-19T20:00:00Z') });
    expect(await iso('tomorrow 15:00', late)).toBe('2026-11-21T09:30:00.000Z');
    expect(await iso('thu 15:00', late)).toBe('2026-11-26T09:30:00.000Z');
  });
  it('reads a weekday as the next one: today only while that time is still ahead', async () => {
    expect(await iso('thu 17:00', berlin)).toBe('2026-11-19T16:00:00.000Z'); // later today
    expect(await iso('thu 15:00', berlin)).toBe('2026-11-26T14:00:00.000Z'); // 15:00 today has passed
    expect(await iso('thu 3pm', at('America/Chicago'))).toBe('2026-11-19T21:00:00.000Z');
    expect(await iso('14:00', berlin)).toBe('2026-11-20T13:00:00.000Z'); // the next 14:00
  });
  it('reads a date without a time as the start of that day for range starts, or of the next for range ends', async () => {
    const start = at('Europe/Berlin', { rangeStart: true });
    expect(await iso('friday', start)).toBe('2026-11-19T23:00:00.000Z');
    expect(await iso('friday', at('Europe/Berlin', { endOfDay: true }))).toBe('2026-11-20T23:00:00.000Z');
    expect(await iso('dec 3', at('America/Chicago', { rangeStart: true }))).toBe('2026-12-03T06:00:00.000Z');
    // A bare weekday that is today means next week's, whatever the hour.
    expect(await iso('thursday', start)).toBe('2026-11-25T23:00:00.000Z');
    expect(
      await iso('thursday', at('Europe/Berlin', { rangeStart: true, now: new Date('2026-11-19T07:00:00Z') })),
    ).toBe('2026-11-25T23:00:00.000Z');
  });
  it('reads a day without a time of day, where one time is needed, as the whole day (never its midnight)', async () => {
    const { readTime } = await import('../../src/domain/human-time.js');
    for (const input of ['friday', 'tues', '2026-11-24', 'tomorrow', 'dec 3']) {
      const r = await readTime(input, berlin);
      expect(r, input).toMatchObject({ kind: 'range', part: 'day', first: false });
      if (r.kind === 'range') expect(r.to.getTime() - r.from.getTime(), input).toBe(86_400_000);
    }
    expect(await readTime('friday', berlin)).toEqual({
      kind: 'range',
      from: new Date('2026-11-19T23:00:00.000Z'),
      to: new Date('2026-11-20T23:00:00.000Z'),
      first: false,
      part: 'day',
    });
    // A time, even midnight written out, is one time.
    expect(await readTime('2026-11-24 00:00', berlin)).toEqual({
      kind: 'instant',
      at: new Date('2026-11-23T23:00:00.000Z'),
    });
    expect(await readTime('now', berlin)).toEqual({ kind: 'instant', at: now });
    expect((await readTime('first friday', berlin)).kind).toBe('range');
  });
  it('refuses a day without a time of day as one time, naming the forms that work', async () => {
    const e = await refusal('tues', berlin);
    expect(e.message).toBe('invalid --start "tues": a day without a time of day (2026-11-24) is not one time');
    expect(e.hint).toBe(
      'write a time on that day, e.g. "tues 15:00", "tues 3pm" or "2026-11-24 15:00" (free times: schedctl slots <event>)',
    );
    const picking = await refusal(' friday ', at('Europe/Berlin', { picks: true }));
    expect(picking.message).toContain('a day without a time of day (2026-11-20) is not one time');
    expect(picking.hint).toBe(
      'write a time on that day ("friday 15:00", "friday 3pm"), "first friday" to take its first free time, or a part of it ("friday afternoon"); on a terminal, schedctl offers the free times of the day',
    );
    expect((await refusal('2026-12-01', berlin)).message).toContain('(2026-12-01) is not one time');
    // "first friday" is one time: the day's first free one (the caller finds it); where nobody
    // looks it up, it is refused as a range, not as a day without a time.
    expect(await iso('first friday', at('Europe/Berlin', { rangeStart: true }))).toBe('2026-11-19T23:00:00.000Z');
    const first = await refusal('first friday', berlin);
    expect(first.message).toContain('is a range (2026-11-20 00:00 to 2026-11-21 00:00');
    expect(first.message).not.toContain('without a time of day');
    // A range end takes the day's end, a range start its start: never refused.
    expect(await iso('tues', at('Europe/Berlin', { endOfDay: true }))).toBe('2026-11-24T23:00:00.000Z');
    expect(await iso('tues', at('Europe/Berlin', { rangeStart: true }))).toBe('2026-11-23T23:00:00.000Z');
  });
  it('reads "in 2 hours" as a duration, exact across a DST change', async () => {
    expect(await iso('in 2 hours', berlin)).toBe('2026-11-19T16:30:00.000Z');
    // 01:30 CEST on the night the clocks go back: two hours later is 02:30 CET.
    expect(await iso('in 2 hours', at('Europe/Berlin', { now: new Date('2026-10-24T23:30:00Z') }))).toBe(
      '2026-10-25T01:30:00.000Z',
    );
  });
});

describe('parseTimeExpression: ambiguity is refused with both readings', () => {
  it('refuses a bare hour that could be morning or afternoon', async () => {
    const e = await refusal('thu 3', berlin);
    expect(e.message).toMatch(
      /^invalid --start "thu 3": the hour "3" could be 03:00 or 15:00: 2026-11-26 03:00 \S+ or 2026-11-26 15:00 \S+$/,
    );
    expect(e.hint).toContain('3am or 3pm');
    expect(e.hint).toContain('accepted forms');
    expect((await refusal('tomorrow at 3', at('America/Chicago'))).message).toMatch(
      /could be 03:00 or 15:00: 2026-11-20 03:00 \S+ or 2026-11-20 15:00/,
    );
    expect((await refusal('thu 12', at('UTC'))).message).toContain('could be 00:00 or 12:00');
    expect((await refusal('dec 3 at 9', at('Asia/Kolkata'))).message).toContain(
      'could be 09:00 or 21:00: 2026-12-03 09:00',
    );
  });
  it('accepts an hour made clear by am/pm, minutes or the 24-hour clock', async () => {
    expect(await iso('thu 15', berlin)).toBe('2026-11-26T14:00:00.000Z');
    expect(await iso('thu 3 pm', berlin)).toBe('2026-11-26T14:00:00.000Z');
    expect(await iso('tomorrow 3am', berlin)).toBe('2026-11-20T02:00:00.000Z');
    expect(await iso('tomorrow 3:00', berlin)).toBe('2026-11-20T02:00:00.000Z');
  });
  it('refuses a numeric date whose day and month could be either way round', async () => {
    const e = await refusal('3/4 14:00', berlin);
    expect(e.message).toBe(
      'invalid --start "3/4 14:00": day and month could be either way round: 2027-03-04 14:00 (4 March) or 2027-04-03 14:00 (3 April)',
    );
    expect(e.hint).toContain('write the month as a word');
    expect((await refusal('3/4/2027', at('UTC'))).message).toContain('2027-03-04 (4 March) or 2027-04-03 (3 April)');
  });
  it('accepts a numeric date that reads only one way', async () => {
    expect(await iso('13/4 14:00', at('UTC'))).toBe('2027-04-13T14:00:00.000Z');
    expect(await iso('4/13 14:00', at('UTC'))).toBe('2027-04-13T14:00:00.000Z');
    expect(await iso('12/12 9:30', at('America/Chicago'))).toBe('2026-12-12T15:30:00.000Z');
  });
  it('refuses text read only in part, several times, a range, a zone in the text or a vague part of day', async () => {
    expect((await refusal('tomorrow blah', berlin)).message).toBe(
      'invalid --start "tomorrow blah": only "tomorrow" reads as a time, not "blah"',
    );
    expect((await refusal('blah tomorrow 15:00', berlin)).message).toContain('not "blah"');
    expect((await refusal('tomorrow 14:60', berlin)).message).toContain('not "14:60"');
    expect((await refusal('fri 15:00 or sat', berlin)).message).toContain(
      'more than one time in it ("fri 15:00", "sat")',
    );
    expect((await refusal('tomorrow 15:00-16:00', berlin)).message).toContain('a range, not one time');
    const zoned = await refusal('tomorrow 15:00 EST', berlin);
    expect(zoned.message).toContain('a time zone inside the expression is not read');
    expect(zoned.hint).toContain('--tz');
    expect((await refusal('tomorrow 15:00 +0200', berlin)).message).toContain('a time zone inside');
    expect((await refusal('tomorrow morning', berlin)).message).toContain('a part of the day is a range');
    expect((await refusal('tonight', berlin)).message).toContain('a part of the day this grammar does not know');
  });
  it('refuses a month without its day ("dec 32" is not December 2032) and a day gone by ("last fri" is not the coming one)', async () => {
    expect((await refusal('dec 32', berlin)).message).toBe(
      'invalid --start "dec 32": a month without its day ("dec 32"): name the day (dec 3, or dec 3 2027)',
    );
    for (const bad of ['jan 40', 'dec 2030', 'first dec 32'])
      expect((await refusal(bad, berlin)).message).toContain('a month without its day');
    expect((await refusal('last friday', berlin)).message).toBe(
      'invalid --start "last friday": "last" names a time gone by: name the day ahead (fri, dec 3)',
    );
    expect((await refusal('last friday 10:00', berlin)).message).toContain('"last" names a time gone by');
    expect((await refusal('previous tue', berlin)).message).toContain('"previous"');
    // A day with its year still reads.
    expect(await iso('dec 3 2032 10:00', berlin)).toBe('2032-12-03T09:00:00.000Z');
  });
  it('refuses what it cannot read at all, naming the flag and the accepted forms', async () => {
    for (const bad of ['', 'soonish', 'feb 30 10:00', 'next tuesday-ish at lunch']) {
      const e = await refusal(bad, at('Europe/Berlin', { name: '--from' }));
      expect(e.message, bad).toMatch(/^invalid --from "/);
      expect(e.hint, bad).toContain('accepted forms');
      expect(e.hint, bad).toContain('next monday 9:30');
    }
  });
});

describe('parseTimeExpression: DST', () => {
  it('refuses a spoken time that a fold repeats', async () => {
    const saturday = at('Europe/Berlin', { now: new Date('2026-10-17T10:00:00Z') });
    const e = await refusal('next sunday 02:30', saturday);
    expect(e.message).toBe(
      'invalid --start "next sunday 02:30": ambiguous in Europe/Berlin (clocks go back): 2026-10-25T02:30+02:00 or 2026-10-25T02:30+01:00',
    );
    expect(e.hint).toContain('add the offset you mean');
    const chicago = at('America/Chicago', { now: new Date('2026-10-31T12:00:00Z') });
    expect((await refusal('tomorrow 1:30am', chicago)).message).toContain(
      '2026-11-01T01:30-05:00 or 2026-11-01T01:30-06:00',
    );
    expect(await iso('tomorrow 2:30am', chicago)).toBe('2026-11-01T08:30:00.000Z');
  });
  it('refuses a spoken time that a gap skips', async () => {
    expect(
      (await refusal('sun 02:30', at('Europe/Berlin', { now: new Date('2026-03-25T10:00:00Z') }))).message,
    ).toContain('does not exist in Europe/Berlin');
    const chicago = at('America/Chicago', { now: new Date('2026-03-07T18:00:00Z') });
    expect((await refusal('tomorrow 2:30am', chicago)).message).toContain('does not exist in America/Chicago');
    expect(await iso('tomorrow 3:30am', chicago)).toBe('2026-03-08T08:30:00.000Z');
  });
  it('has no folds in UTC or Kolkata', async () => {
    const fold = new Date('2026-10-17T10:00:00Z');
    expect(await iso('next sunday 02:30', at('UTC', { now: fold }))).toBe('2026-10-25T02:30:00.000Z');
    expect(await iso('next sunday 02:30', at('Asia/Kolkata', { now: fold }))).toBe('2026-10-24T21:00:00.000Z');
  });
});

describe('chrono-node stays off other paths', () => {
  it('is imported only lazily and only here', () => {
    const human = readFileSync(new URL('../../src/domain/human-time.ts', import.meta.url), 'utf8');
    const time = readFileSync(new URL('../../src/domain/time.ts', import.meta.url), 'utf8');
    expect(human).toContain("await import('chrono-node/en')");
    expect(human).not.toMatch(/^import (?!type )[^\n]*'chrono-node(\/en)?'/m);
    expect(time).not.toMatch(/from 'chrono-node|import\('chrono-node/);
  });
});
