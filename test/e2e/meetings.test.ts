/**
 * Find and move meetings (the support engineer's job): `meetings ls/show` over the local record,
 * `reschedule --email` and its day-grouped picker, times as people say them.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { show } from '../helpers/cli.js';
import { useSandbox } from '../helpers/sandbox.js';
import { ENTER, onTerminal, plainScreen } from '../helpers/terminal.js';

const t = useSandbox();
const cli = (args: string[]) => t.sb.cli(args, { configDir: t.dir });

async function book(event: string, email: string, pick = 0): Promise<{ id: string; date: string; free: string[] }> {
  const { reservationId, slots } = await t.sb.slots(event, 14);
  const b = await cli([
    'book',
    event,
    '--start',
    slots[pick]!,
    '--reservation',
    reservationId,
    '--email',
    email,
    '--json',
    // A helper that builds a lead's several meetings on purpose: the ledger would refuse the second.
    '--rebook',
  ]);
  expect(b.code, show(b)).toBe(0);
  return {
    id: b.json().meeting.id,
    date: b.json().meeting.date,
    free: slots.filter((_: string, i: number) => i !== pick),
  };
}

describe('meetings ls / show', () => {
  it('lists the meetings booked here, upcoming first, filtered by email and event, with where they came from', async () => {
    const a = await book('quarterly-review', 'ada@acme.example');
    const b = await book('intro-call', 'bob@acme.example');
    const all = await cli(['meetings', 'ls', '--json']);
    expect(all.code, show(all)).toBe(0);
    const docs = all.json() as Array<Record<string, unknown>>;
    expect(docs.map((m) => m.id).sort()).toEqual([a.id, b.id].sort());
    expect(docs[0]).toMatchObject({ source: 'booked', event: expect.any(String), history: [] });
    expect(Date.parse(docs[0]!.date as string)).toBeLessThanOrEqual(Date.parse(docs[1]!.date as string));
    const byEmail = await cli(['meetings', 'ls', '--email', 'ADA@acme.example', '--json']);
    expect(byEmail.json().map((m: { id: string }) => m.id)).toEqual([a.id]);
    const byEvent = await cli(['meetings', 'ls', '--event', 'intro-call', '--json']);
    expect(byEvent.json().map((m: { id: string }) => m.id)).toEqual([b.id]);
    const table = await cli(['meetings', 'ls', '--tz', 'UTC']);
    expect(table.stdout).toMatch(/TIME \(UTC\)\s+LEAD\s+EVENT\s+STATUS\s+SOURCE\s+ID/);
    expect(table.stdout).toContain('ada@acme.example');
    // The record is local: nothing was asked of the API.
    const before = await t.sb.requestCount();
    await cli(['meetings', 'ls']);
    expect(await t.sb.requestCount()).toBe(before);
  });

  it('--limit n lists the first n in time order, upcoming or --all; a limit that is not a whole number is exit 2', async () => {
    const booked = [
      await book('quarterly-review', 'cy@acme.example', 0),
      await book('intro-call', 'di@acme.example', 1),
      await book('quarterly-review', 'ed@acme.example', 2),
    ].sort((x, y) => Date.parse(x.date) - Date.parse(y.date) || (x.id < y.id ? -1 : 1));
    for (const args of [
      ['--limit', '2'],
      ['-n', '2', '--all'],
      ['--all', '--limit', '2', '--event', 'quarterly-review'],
    ]) {
      const r = await cli(['meetings', 'ls', ...args, '--json']);
      expect(r.code, show(r)).toBe(0);
      const ids = r.json().map((m: { id: string }) => m.id);
      const expected = args.includes('--event')
        ? (await cli(['meetings', 'ls', '--all', '--event', 'quarterly-review', '--json'])).json().slice(0, 2)
        : booked.slice(0, 2);
      expect(ids, args.join(' ')).toEqual(expected.map((m: { id: string }) => m.id));
    }
    const wide = await cli(['meetings', 'ls', '--limit', '1000', '--json']);
    expect(wide.json()).toHaveLength(3);
    for (const bad of ['0', 'two', '1.5', '-3']) {
      const r = await cli(['meetings', 'ls', '--limit', bad, '--json']);
      expect(r.code, show(r)).toBe(2);
      expect(r.json().error).toMatchObject({
        code: 'USAGE',
        message: expect.stringContaining(`invalid --limit "${bad}"`),
      });
    }
  });

  it('shows one meeting with its history of moves; an id not on record is exit 4', async () => {
    const m = await book('quarterly-review', 'ada@acme.example');
    const moved = await cli(['reschedule', m.id, '--start', m.free.at(-1)!, '--json']);
    expect(moved.code, show(moved)).toBe(0);
    const r = await cli(['meetings', 'show', m.id, '--json']);
    expect(r.code, show(r)).toBe(0);
    expect(r.json()).toMatchObject({
      id: m.id,
      source: 'booked',
      history: [{ from: m.date, to: m.free.at(-1), at: expect.any(String) }],
    });
    const human = await cli(['meetings', 'show', m.id, '--tz', 'UTC']);
    expect(human.stdout).toContain('moves');
    expect(human.stdout).toMatch(/from \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC to/);
    const missing = await cli(['meetings', 'show', '00000000-0000-4000-8000-000000000000', '--json']);
    expect(missing.code).toBe(4);
    expect(missing.json().error.code).toBe('NOT_FOUND');
  });
});

describe('reschedule --email', () => {
  it("moves the lead's only upcoming meeting, with a time as people say it; --json shows the resolved time", async () => {
    const m = await book('quarterly-review', 'ada@acme.example');
    const target = new Date(m.free.at(-1)!);
    // "<Mon> <day> <HH:MM>" in UTC, the way a person writes it.
    const spoken = `${target.toLocaleString('en-US', { month: 'short', timeZone: 'UTC' })} ${target.getUTCDate()} ${String(target.getUTCHours()).padStart(2, '0')}:${String(target.getUTCMinutes()).padStart(2, '0')}`;
    const r = await cli(['reschedule', '--email', 'ada@acme.example', '--start', spoken, '--tz', 'UTC', '--json']);
    expect(r.code, show(r)).toBe(0);
    expect(r.json().meeting).toMatchObject({ id: m.id, date: target.toISOString() });
  });

  it('several matches fail in scripts listing them (exit 2); no match is exit 4; nothing is sent', async () => {
    await book('quarterly-review', 'ada@acme.example', 0);
    await book('intro-call', 'ada@acme.example', 0);
    const before = await t.sb.requestCount();
    const r = await cli(['reschedule', '--email', 'ada@acme.example', '--start', 'tomorrow 15:00', '--json']);
    expect(r.code, show(r)).toBe(2);
    expect(r.json().error.details).toHaveLength(2);
    expect(r.json().error.message).toContain('pass the meeting id (or --event)');
    const none = await cli(['reschedule', '--email', 'nobody@acme.example', '--start', 'tomorrow 15:00', '--json']);
    expect(none.code, show(none)).toBe(4);
    expect(await t.sb.requestCount()).toBe(before);
  });

  it('an ambiguous time is refused with both readings, before any request', async () => {
    await book('quarterly-review', 'ada@acme.example');
    const r = await cli(['reschedule', '--email', 'ada@acme.example', '--start', 'thu 3', '--tz', 'UTC', '--json']);
    expect(r.code, show(r)).toBe(2);
    expect(r.json().error.message).toMatch(/03:00.*15:00|15:00.*03:00/);
  });

  it('on a terminal: pages to later times and back, then confirms the move "from … to …"', async () => {
    const m = await book('quarterly-review', 'ada@acme.example');
    const r = await onTerminal(
      ['reschedule', '--email', 'ada@acme.example', '--tz', 'UTC'],
      [
        // The ways on follow the days; typing finds them: "later", then on the later page "earlier".
        ['pick a day', 'later'],
        ['❯ later times', ENTER],
        ['← earlier times', 'earlier'],
        ['❯ ← earlier times', ENTER],
        // The first page's days ("… free times"): the answered question's echo repeats its message.
        ['free time', ENTER],
        ['← other days', ENTER],
        ['Move "', ENTER],
      ],
      { sb: t.sb, configDir: t.dir, env: { TZ: 'UTC' } },
    );
    expect(r.code, r.stderr).toBe(0);
    const slots = (await t.sb.state()).requests.filter((q) => q.path.endsWith('/slots'));
    expect(slots.length).toBeGreaterThanOrEqual(3);
    const plain = plainScreen(r.stderr);
    // Named by its title, date and host; its id only in the result.
    expect(plain).toMatch(/Move "[^"]+" \([^)]*\) from /);
    expect(plain).not.toContain(`Move meeting ${m.id}`);
    expect(plain).toContain('(as schedctl last recorded it) to ');
  });
});

describe('route --from files and the meetings record', () => {
  it('a CSV of moves resolves emails through the record', async () => {
    const m = await book('quarterly-review', 'ada@acme.example');
    const file = join(t.dir, 'moves.csv');
    writeFileSync(file, `email,start\nada@acme.example,${m.free.at(-1)}\n`);
    const r = await cli(['reschedule', '--from', file, '--json']);
    expect(r.code, show(r)).toBe(0);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({ row: 2, key: 'ada@acme.example', status: 'moved', meetingId: m.id });
  });
});
