/**
 * The time grammar's messages and edge rules (src/domain/human-time.ts), each by name: what a
 * part of the day suggests as a clock time, the hints of each refusal, the nearest wording of a
 * misspelt word, the hour and day-month ambiguities, the year a date without one falls in, and
 * when the parser of words is loaded. Every "now" is fixed here: no test depends on today.
 */
import { describe, expect, it } from 'vitest';
import {
  loadTimeExpressions,
  normalizeTimeWords,
  parseLoadedTimeExpression,
  readLoadedTime,
  readTime,
} from '../../src/domain/human-time.js';
import type { UsageError } from '../../src/errors.js';

/** Wednesday 4 March 2026, 11:30:17.250 in Berlin (GMT+1). */
const NOW = new Date('2026-03-04T10:30:17.250Z');
const OPTS = { zone: 'Europe/Berlin', now: NOW, name: '--start', zoneInput: '--tz' };

/** The refusal of `input` (with `extra` options): its message and hint. */
function refusal(input: string, extra: object = {}): { message: string; hint: string } {
  try {
    parseLoadedTimeExpression(input, { ...OPTS, ...extra });
  } catch (error) {
    const e = error as UsageError;
    return { message: e.message, hint: e.hint ?? '' };
  }
  throw new Error(`"${input}" was accepted`);
}
const at = (input: string, extra: object = {}) => parseLoadedTimeExpression(input, { ...OPTS, ...extra }).toISOString();

describe('human time: messages and edge rules', async () => {
  await loadTimeExpressions();

  describe('a part of the day where one time is needed suggests a clock time inside it', () => {
    it.each([
      ['tue morning', '2026-03-10 08:00 to 12:00 GMT+1', '09:00'],
      ['tue afternoon', '2026-03-10 12:00 to 17:00 GMT+1', '15:00'],
      ['tue evening', '2026-03-10 17:00 to 21:00 GMT+1', '18:00'],
    ])('%s: the range shown, and %s suggested', (input, range, clock) => {
      expect(refusal(input)).toEqual({
        message: `invalid --start "${input}": a part of the day is a range (${range}), not one time`,
        hint: `write one time, e.g. ${clock} on that day (free times: schedctl slots <event>)`,
      });
      // A caller that can pick (a terminal) also offers "first …".
      expect(refusal(input, { picks: true }).hint).toBe(
        `write "first ${input}" to take its first free time, or a clock time (${clock}); on a terminal, schedctl offers the free times in it`,
      );
    });

    it('"first tue afternoon" suggests itself without a second "first"', () => {
      expect(refusal('first tue afternoon', { picks: true }).hint).toMatch(/^write "first tue afternoon" to take/);
    });
  });

  describe('a day alone where one time is needed', () => {
    it('names the day and the forms that work', () => {
      expect(refusal('tomorrow')).toEqual({
        message: 'invalid --start "tomorrow": a day without a time of day (2026-03-05) is not one time',
        hint: 'write a time on that day, e.g. "tomorrow 15:00", "tomorrow 3pm" or "2026-03-05 15:00" (free times: schedctl slots <event>)',
      });
      expect(refusal('tomorrow', { picks: true }).hint).toBe(
        'write a time on that day ("tomorrow 15:00", "tomorrow 3pm"), "first tomorrow" to take its first free time, or a part of it ("tomorrow afternoon"); on a terminal, schedctl offers the free times of the day',
      );
    });

    it('a bare weekday that is today means next week', () => {
      expect(refusal('wed').message).toContain('(2026-03-11)');
      // With the day of the month given it is that day, today.
      expect(refusal('wed mar 4').message).toContain('(2026-03-04)');
    });

    it('reads as the whole day as a range, its start at a range start and its end at a range end', () => {
      const day = { from: new Date('2026-03-04T23:00:00Z'), to: new Date('2026-03-05T23:00:00Z') };
      expect(readLoadedTime('tomorrow 00:00', OPTS)).toEqual({ kind: 'instant', at: day.from });
      expect(readLoadedTime('thu', OPTS)).toEqual({ kind: 'range', ...day, first: false, part: 'day' });
      expect(readLoadedTime('thu', { ...OPTS, rangeStart: true })).toEqual({ kind: 'instant', at: day.from });
      expect(readLoadedTime('thu', { ...OPTS, endOfDay: true })).toEqual({ kind: 'instant', at: day.to });
    });
  });

  describe('"first" and parts of the day', () => {
    it('"first <day>" is the whole day, to pick its first free time in', () => {
      expect(readLoadedTime('first thu', OPTS)).toEqual({
        kind: 'range',
        from: new Date('2026-03-04T23:00:00Z'),
        to: new Date('2026-03-05T23:00:00Z'),
        first: true,
        part: 'day',
      });
    });

    it('"first <part of a day>", with spaces around it, is that part, first', () => {
      expect(readLoadedTime('  first tue afternoon ', { ...OPTS, rangeStart: true })).toEqual({
        kind: 'range',
        from: new Date('2026-03-10T11:00:00Z'),
        to: new Date('2026-03-10T16:00:00Z'),
        first: true,
        part: 'afternoon',
      });
      expect(readLoadedTime('tue afternoon', OPTS)).toMatchObject({ kind: 'range', first: false, part: 'afternoon' });
    });

    it("a part of the day alone is today's", () => {
      expect(readLoadedTime('in the afternoon', OPTS)).toMatchObject({
        from: new Date('2026-03-04T11:00:00Z'),
        to: new Date('2026-03-04T16:00:00Z'),
      });
    });

    it('refuses a time with a part of the day, and "first" with a time', () => {
      expect(refusal('tomorrow 10:00 afternoon').message).toBe(
        'invalid --start "tomorrow 10:00 afternoon": a part of the day takes a day, not a time ("tomorrow 10:00")',
      );
      expect(refusal('first tomorrow 10:00').message).toBe(
        'invalid --start "first tomorrow 10:00": "first" takes a day or a part of the day (first tue afternoon), not a time',
      );
    });
  });

  describe('each refusal has the hint of its reason, then the accepted forms', () => {
    it.each([
      [
        'tomorrow 3pm CET',
        'a time zone inside the expression is not read',
        'give the zone with --tz, or ISO 8601 with an offset (2026-12-01T14:00+01:00); accepted forms: ',
      ],
      [
        'tonight',
        'a part of the day this grammar does not know',
        'give a clock time (tomorrow 09:00), or morning, afternoon or evening as a range; accepted forms: ',
      ],
      ['mon 9am to 10am', 'a range, not one time', 'give one time; accepted forms: '],
      ['fri 3pm fri 4pm', 'more than one time in it ("fri 3pm", "fri 4pm")', 'give one time; accepted forms: '],
      ['tomorrow noonish', 'only "tomorrow" reads as a time, not "noonish"', 'accepted forms: '],
    ])('%s', (input, why, hint) => {
      const r = refusal(input);
      expect(r.message).toBe(`invalid --start "${input}": ${why}`);
      expect(r.hint.startsWith(hint), r.hint).toBe(true);
      expect(r.hint).toContain('ISO 8601 with an offset (2026-12-01T14:00Z');
    });
  });

  describe('a misspelt word: the nearest wording the grammar reads', () => {
    it.each([
      ['tusday 10:00', 'tuesday 10:00'],
      ['fridey 3pm', 'friday 3pm'],
      // Four letters or fewer: one letter off at most.
      ['tuse 10:00', 'tuesday 10:00'],
      // Two words as near: the first of them in the vocabulary.
      ['jux 3 10:00', 'jun 3 10:00'],
    ])('%s: did you mean "%s"?', (input, suggestion) => {
      expect(refusal(input).hint).toMatch(new RegExp(`^did you mean "${suggestion}"\\? accepted forms: `));
    });

    it.each(['tuxx 10:00', 'frdiey 3pm'])('%s: too far from any word, no suggestion', (input) => {
      expect(refusal(input).hint).toMatch(/^accepted forms: /);
    });
  });

  describe('an hour that could be morning or evening', () => {
    it.each([
      ['thu 3', '3', '03:00', '15:00', '2026-03-05'],
      ['thu at 3', '3', '03:00', '15:00', '2026-03-05'],
      ['tue, 3', '3', '03:00', '15:00', '2026-03-10'],
      ['thu 1', '1', '01:00', '13:00', '2026-03-05'],
      ['tomorrow 1', '1', '01:00', '13:00', '2026-03-05'],
      ['thursday 12', '12', '00:00', '12:00', '2026-03-05'],
      ['tomorrow 12', '12', '00:00', '12:00', '2026-03-05'],
      // A bare weekday that is today: next week's.
      ['wed 3', '3', '03:00', '15:00', '2026-03-11'],
    ])('%s is refused with both readings', (input, hour, am, pm, day) => {
      expect(refusal(input)).toEqual({
        message: `invalid --start "${input}": the hour "${hour}" could be ${am} or ${pm}: ${day} ${am} GMT+1 or ${day} ${pm} GMT+1`,
        hint: expect.stringMatching(
          new RegExp(`^write ${am} or ${pm} \\(24-hour\\), or ${hour}am or ${hour}pm; accepted forms: `),
        ) as string,
      });
    });

    it('13 and later are 24-hour; 0 is no hour', () => {
      expect(at('thu 13')).toBe('2026-03-05T12:00:00.000Z');
      expect(refusal('thu 0').message).toBe('invalid --start "thu 0": only "thu" reads as a time, not "0"');
    });
  });

  describe('a date with slashes that reads either way round', () => {
    it.each([
      // Today's date this year; a date before today: next year's.
      ['3/4', '2026-03-04 (4 March) or 2026-04-03 (3 April)', 'mar 4 or apr 3', '2026-03-04'],
      ['1/2', '2027-01-02 (2 January) or 2027-02-01 (1 February)', 'jan 2 or feb 1', '2027-01-02'],
      ['12/3', '2026-12-03 (3 December) or 2026-03-12 (12 March)', 'dec 3 or mar 12', '2026-12-03'],
      // The year given is kept.
      ['3/4/27', '2027-03-04 (4 March) or 2027-04-03 (3 April)', 'mar 4 or apr 3', '2027-03-04'],
      ['3/4 14:30', '2026-03-04 14:30 (4 March) or 2026-04-03 14:30 (3 April)', 'mar 4 or apr 3', '2026-03-04'],
    ])('%s', (input, readings, words, iso) => {
      const r = refusal(input);
      expect(r.message).toBe(`invalid --start "${input}": day and month could be either way round: ${readings}`);
      expect(r.hint).toMatch(
        new RegExp(`^write the month as a word \\(${words}\\) or the date as ${iso}; accepted forms: `),
      );
    });

    it('one that reads only one way is a day (13 is no month; the same number twice)', () => {
      expect(refusal('13/12').message).toBe(
        'invalid --start "13/12": a day without a time of day (2026-12-13) is not one time',
      );
      expect(refusal('10/10').message).toContain('(2026-10-10)');
    });
  });

  describe('durations and words', () => {
    it('"in 45 seconds" is exact from now, to the millisecond', () => {
      expect(at('in 45 seconds')).toBe('2026-03-04T10:31:02.250Z');
      expect(at('in 2 hours')).toBe('2026-03-04T12:30:17.250Z');
    });

    it('spells out the abbreviations chrono does not know, and trims', () => {
      expect(normalizeTimeWords('  tues  ')).toBe('tuesday');
      expect(normalizeTimeWords('weds 9am')).toBe('wednesday 9am');
      expect(at('  tues  10:00  ')).toBe('2026-03-10T09:00:00.000Z');
    });

    it('a refusal of the fixed forms that is not "not understood" is kept as it is (a DST gap)', async () => {
      const message =
        'invalid --start "2026-03-29 02:30": that local time does not exist in Europe/Berlin (clocks go forward at a DST change)';
      expect(refusal('2026-03-29 02:30').message).toBe(message);
      await expect(readTime('2026-03-29 02:30', OPTS)).rejects.toThrow(message);
    });
  });
});
