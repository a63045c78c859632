/**
 * docs/time.md's grammar table, row by row: each input reads as its row says, so the manual
 * and the code cannot drift. A row's "Reads as" is a local time (`2026-12-01 14:00`), a range
 * (`2026-12-01 12:00 to 17:00`, `first free …` when the wording asks for its first free time),
 * or `refused` (with the suggested form in backticks, when the row names one).
 */
import { readFileSync } from 'node:fs';
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { readTime, type TimeReading } from '../../src/domain/human-time.js';
import { UsageError } from '../../src/errors.js';

const doc = readFileSync(new URL('../../docs/time.md', import.meta.url), 'utf8');
const table = /<!-- grammar -->\n([\s\S]*?)<!-- \/grammar -->/.exec(doc)?.[1] ?? '';
const rows = table
  .split('\n')
  .filter((line) => line.startsWith('| `'))
  .map((line) => {
    const [input = '', readsAs = ''] = line
      .split('|')
      .slice(1)
      .map((cell) => cell.trim());
    return { input: input.replace(/^`|`$/g, ''), readsAs };
  });

// The doc's reference clock: Wednesday 2026-11-25 10:00 in UTC.
const opts = { zone: 'UTC', now: new Date('2026-11-25T10:00:00Z'), name: '--start', zoneInput: '--tz' };
const local = (d: Date) => DateTime.fromJSDate(d, { zone: 'UTC' }).toFormat('yyyy-MM-dd HH:mm');

function shown(r: TimeReading): string {
  if (r.kind === 'instant') return local(r.at);
  const [from, to] = [local(r.from), local(r.to)];
  const end = from.slice(0, 10) === to.slice(0, 10) ? to.slice(11) : to;
  return `${r.first ? 'first free ' : ''}${from} to ${end}`;
}

describe('docs/time.md: the time grammar, row by row', () => {
  it('has the table (every weekday spelling among its rows)', () => {
    expect(rows.length).toBeGreaterThan(30);
    const inputs = rows.map((r) => r.input.split(' ')[0]?.toLowerCase());
    for (const w of ['mon', 'tue', 'tues', 'wed', 'weds', 'thu', 'thur', 'thurs', 'fri', 'sat', 'sun', 'next'])
      expect(inputs, w).toContain(w);
  });
  it.each(rows)('$input reads as $readsAs', async ({ input, readsAs }) => {
    if (readsAs.startsWith('refused')) {
      const error = await readTime(input, opts).then(
        (r) => new Error(`expected "${input}" to be refused, got ${shown(r)}`),
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(UsageError);
      const suggested = /`([^`]+)`/.exec(readsAs)?.[1];
      if (suggested) expect((error as UsageError).hint).toContain(`did you mean "${suggested}"?`);
      return;
    }
    expect(shown(await readTime(input, opts))).toBe(readsAs);
  });
});

describe('a range where one time is needed', () => {
  it('is refused naming the range; only a caller that can pick in it suggests "first …"', async () => {
    const { parseTimeExpression } = await import('../../src/domain/human-time.js');
    const refusal = (extra: object) =>
      parseTimeExpression('tue afternoon', { ...opts, ...extra }).then(
        () => undefined,
        (e: UsageError) => e,
      );
    const book = await refusal({});
    expect(book?.message).toContain('a part of the day is a range (2026-12-01 12:00 to 17:00 UTC)');
    expect(book?.hint).not.toContain('first');
    expect((await refusal({ picks: true }))?.hint).toContain('write "first tue afternoon"');
    // A range start or end takes its start or end.
    expect((await parseTimeExpression('tue afternoon', { ...opts, rangeStart: true })).toISOString()).toBe(
      '2026-12-01T12:00:00.000Z',
    );
    expect((await parseTimeExpression('tue afternoon', { ...opts, endOfDay: true })).toISOString()).toBe(
      '2026-12-01T17:00:00.000Z',
    );
  });
});

describe('a part of the day alone', () => {
  it('is today’s, as a range start and as a range end', async () => {
    const { parseTimeExpression } = await import('../../src/domain/human-time.js');
    expect((await parseTimeExpression('afternoon', { ...opts, endOfDay: true })).toISOString()).toBe(
      '2026-11-25T17:00:00.000Z',
    );
    expect((await parseTimeExpression('this morning', { ...opts, rangeStart: true })).toISOString()).toBe(
      '2026-11-25T08:00:00.000Z',
    );
  });
});
