/**
 * Issue 54, finding 5: `book` reads --start in the grammar `reschedule` reads. A day or a part of
 * one ("first friday", "tomorrow afternoon") books its first free time; without --reservation the
 * free times are fetched for it (one slots request), so `book <event> --email … --start <time>`
 * runs as written; `--yes` is accepted as in `route`. Every flag is still checked before any request.
 */
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { show } from '../helpers/cli.js';
import { useSandbox } from '../helpers/sandbox.js';
import { nextWorkday } from '../helpers/workday.js';

const t = useSandbox();
const cli = (args: string[]) => t.sb.cli(args, { configDir: t.dir, env: { TZ: 'UTC' } });
const sent = async () => (await t.sb.state()).requests.map((q) => `${q.method} ${q.path}`);
const BOOK = 'POST /v1/scheduling/meetings';

describe('book --start with a day or a part of one', () => {
  it('"first <weekday>" without --reservation: books that day\'s first free time, --yes accepted', async () => {
    // The first working day two or more days ahead (two days ahead alone is a weekend on a
    // Thursday or a Friday: no free times), and its first free time before anything is booked.
    const { slots } = await t.sb.slots('intro-call', 14);
    const from = DateTime.utc().plus({ days: 2 }).startOf('day');
    const firstOfDay = slots.find((s) => DateTime.fromISO(s, { zone: 'UTC' }) >= from);
    const target = DateTime.fromISO(firstOfDay!, { zone: 'UTC' });
    expect(target < from.plus({ days: 5 }), 'a weekday name within the week ahead').toBe(true);
    const day = target.toFormat('cccc').toLowerCase();
    const r = await cli([
      'book',
      'intro-call',
      '--start',
      `first ${day}`,
      '--email',
      'ada@acme.example',
      '--yes',
      '--json',
    ]);
    expect(r.code, show(r)).toBe(0);
    const meeting = r.json<{ meeting: { date: string; personEmail: string } }>().meeting;
    expect(Date.parse(meeting.date)).toBe(Date.parse(firstOfDay!));
    expect((await sent()).filter((s) => s === BOOK)).toHaveLength(1);
  });

  it('"tomorrow afternoon" with --reservation: its first free time at 12:00 or later, on that reservation', async () => {
    // "monday afternoon" when tomorrow is a weekend (no free times then).
    const next = nextWorkday();
    const held = await t.sb.slots('intro-call', 5);
    const r = await cli([
      'book',
      'intro-call',
      '--start',
      `${next.word} afternoon`,
      '--reservation',
      held.reservationId,
      '--email',
      'bo@acme.example',
    ]);
    expect(r.code, show(r)).toBe(0);
    expect(r.stderr).toContain(`The first free time in "${next.word} afternoon"`);
    const [meeting] = (await t.sb.state()).meetings;
    const at = DateTime.fromISO(meeting!.date, { zone: 'UTC' });
    expect(at.hasSame(next.day, 'day')).toBe(true);
    expect(at.hour).toBeGreaterThanOrEqual(12);
    expect(at.hour).toBeLessThan(17);
  });

  it('one time without --reservation: the reservation is fetched and that time is booked', async () => {
    const { slots } = await t.sb.slots('intro-call', 14);
    const start = slots[3]!;
    const r = await cli(['book', 'intro-call', '--email', 'cy@acme.example', '--start', start, '--json']);
    expect(r.code, show(r)).toBe(0);
    expect(Date.parse(r.json<{ meeting: { date: string } }>().meeting.date)).toBe(Date.parse(start));
  });

  it('a bad flag beside a day is refused before any request', async () => {
    const r = await cli(['book', 'intro-call', '--start', 'first friday', '--email', 'not-an-email']);
    expect(r.code, show(r)).toBe(2);
    expect(r.stderr).toContain('invalid --email');
    expect(await sent()).toEqual([]);
  });
});
