import { ledgerRows } from '../helpers/ledger-db.js';
import { describe, expect, it } from 'vitest';
import { strictSchemas } from '../../src/api/schemas.js';
import { DateTime } from 'luxon';
import { show } from '../helpers/cli.js';
import { useSandbox } from '../helpers/sandbox.js';
import { nextWorkday } from '../helpers/workday.js';
import { startMcp } from '../helpers/mcp-client.js';
import { DOWN, ENTER, onTerminal, plainScreen, type Answer } from '../helpers/terminal.js';

const t = useSandbox();

const cli = (args: string[], opts: { key?: 'full' | 'readOnly' | 'revoked' } = {}) =>
  t.sb.cli(args, { configDir: t.dir, ...opts });
const PATCH = '/v1/scheduling/meetings/*';

/** Books quarterly-review (one host) at its first slot; returns the meeting and the other free times. */
async function booked(): Promise<{ id: string; date: string; free: string[] }> {
  const { reservationId, slots } = await t.sb.slots('quarterly-review', 14);
  const b = await cli([
    'book',
    'quarterly-review',
    '--start',
    slots[0]!,
    '--reservation',
    reservationId,
    '--email',
    'lead@acme.example',
    '--json',
  ]);
  expect(b.code, show(b)).toBe(0);
  return { id: b.json().meeting.id, date: b.json().meeting.date, free: slots.slice(1) };
}

/**
 * Books quarterly-review at its first slot over HTTP, as the scheduling app or another machine
 * would: the meeting exists at the server and is not in this config dir's record. For the tests
 * of what a move's answer (an error, a refused key, a lost answer) does, which the record does
 * not change; `booked()` makes the record with the CLI where the record is what a test reads.
 */
async function bookedAtServer(): Promise<{ id: string; date: string; free: string[] }> {
  const { reservationId, slots } = await t.sb.slots('quarterly-review', 14);
  const res = await fetch(`${t.sb.baseUrl}/v1/scheduling/meetings`, {
    method: 'POST',
    headers: { authorization: `Bearer ${t.sb.keys.full}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      event: 'quarterly-review',
      startTime: slots[0],
      reservationId,
      personEmail: 'lead@acme.example',
    }),
  });
  expect(res.status, await res.clone().text()).toBe(201);
  const meeting = (await res.json()) as { id: string; date: string };
  return { id: meeting.id, date: meeting.date, free: slots.slice(1) };
}

describe('a move journaled as a booking is (issue 52 finding 5)', () => {
  it('a move to the time on record sends nothing and says so, from the CLI and the MCP tool', async () => {
    const m = await booked();
    const target = m.free.at(-1)!;
    const first = await cli(['reschedule', m.id, '--start', target, '--json']);
    expect(first.code, show(first)).toBe(0);
    const patches = async () => (await t.sb.state()).requests.filter((r) => r.method === 'PATCH').length;
    expect(await patches()).toBe(1);

    const again = await cli(['reschedule', m.id, '--start', target]);
    expect(again.code, show(again)).toBe(0);
    expect(again.stderr).toContain('nothing was sent');
    expect(again.stdout).toContain('no change: it is already at');
    const session = await startMcp({
      configDir: t.dir,
      env: { SCHEDCTL_API_KEY: t.sb.keys.full, SCHEDCTL_BASE_URL: t.sb.baseUrl },
    });
    try {
      const tool = await session.call('reschedule_meeting', { meeting_id: m.id, start: target });
      expect(tool.isError, tool.text).toBe(false);
      expect(tool.text).toContain('Nothing was sent');
    } finally {
      await session.close();
    }
    expect(await patches()).toBe(1);
  });

  it('a lost answer leaves the move sent; the same command sends that move again, and the record follows', async () => {
    const m = await booked();
    const target = m.free.at(-1)!;
    await t.sb.fault({ method: 'PATCH', path: PATCH, fault: 'drop-after-commit' });
    const lost = await cli(['reschedule', m.id, '--start', target]);
    expect(lost.code, show(lost)).toBe(7);
    const [row] = ledgerRows<{ id: string; pendingMove?: { to: string } }>(t.dir, 'meetings').filter(
      (r) => r.id === m.id,
    );
    expect(row?.pendingMove?.to).toBe(target);
    // meetings ls does not state the old time as fact: the move may have landed.
    const listed = await cli(['meetings', 'ls', '--email', 'lead@acme.example']);
    expect(listed.stdout).toContain('move unanswered');
    expect(listed.stderr).toContain(`move unanswered: meeting ${m.id} was being moved to `);
    const shown = await cli(['meetings', 'show', m.id]);
    expect(shown.stdout).toMatch(/^ {2}move sent {5}to .*, its answer lost: it may be at either time/m);
    expect(shown.stdout).toMatch(/^ {2}recorded {6}booked at .* by .+@.+$/m);
    const refused = await cli([
      'book',
      'quarterly-review',
      '--start',
      m.free[0]!,
      '--email',
      'lead@acme.example',
      '--json',
    ]);
    expect(refused.code, show(refused)).toBe(5);
    expect(refused.json().error.message).toContain(`already has meeting ${m.id} at `);
    expect(refused.json().error.message).toContain(', if its unanswered move landed, ');
    const timeline = await cli(['meetings', 'history', 'lead@acme.example', '--json']);
    expect(timeline.code, show(timeline)).toBe(0);
    expect(timeline.json().entries).toContainEqual(
      expect.objectContaining({ kind: 'move_unanswered', meetingId: m.id, to: target }),
    );
    const again = await cli(['reschedule', m.id, '--start', target, '--json']);
    expect(again.code, show(again)).toBe(0);
    expect(again.stderr).toContain('got no answer: sending it again as it was');
    const [after] = ledgerRows<{ id: string; date: string; pendingMove?: unknown }>(t.dir, 'meetings').filter(
      (r) => r.id === m.id,
    );
    expect(after?.pendingMove).toBeUndefined();
    expect(Date.parse(after!.date)).toBe(Date.parse(target));
    const kinds = (await cli(['meetings', 'history', 'lead@acme.example', '--json']))
      .json()
      .entries.map((e: { kind: string }) => e.kind);
    expect(kinds).toContain('move');
    expect(kinds).not.toContain('move_unanswered');
  });
});

describe('reschedule', () => {
  it('moves the meeting and prints the new and the old time (from the journal)', async () => {
    const m = await booked();
    const target = m.free.at(-1)!;
    const r = await cli(['reschedule', m.id, '--start', target, '--tz', 'UTC']);
    expect(r.code, show(r)).toBe(0);
    const fmt = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
    expect(r.stdout).toContain(`Rescheduled meeting ${m.id}`);
    expect(r.stdout).toMatch(new RegExp(`time +${fmt(target)}`));
    expect(r.stdout).toMatch(new RegExp(`was {8}${fmt(m.date)}`));
    // In UTC the time prints once, not "17:30 UTC (17:30 UTC)".
    expect(r.stdout).not.toContain(`${fmt(m.date)} (`);
    expect(r.stdout).toMatch(/status +rescheduled/);
    const state = await t.sb.state();
    expect(state.meetings[0]!.date).toBe(target);
    const entries = ledgerRows<Record<string, unknown>>(t.dir, 'attempts');
    expect(entries[0]).toMatchObject({ meetingId: m.id, startTime: target });
  });

  it('prints the Meeting with --json, and reads local times in --tz', async () => {
    const m = await booked();
    const target = m.free[2]!;
    const local = new Date(target).toLocaleString('sv-SE', { timeZone: 'America/New_York' }).slice(0, 16);
    const r = await cli(['reschedule', m.id, '--start', local, '--tz', 'America/New_York', '--json']);
    expect(r.code, show(r)).toBe(0);
    // A move result: `status`, the API's Meeting, where it was, and the one time tried.
    expect(strictSchemas.meeting.safeParse(r.json().meeting).success).toBe(true);
    expect(r.json()).toMatchObject({ status: 'moved', from: m.date, tried: [{ startTime: target, answer: 'moved' }] });
    expect(r.json().meeting).toMatchObject({ id: m.id, date: target, status: 'rescheduled' });
  });

  it('says the old time is unknown for a meeting booked elsewhere', async () => {
    const m = await bookedAtServer();
    const r = await cli(['reschedule', m.id, '--start', m.free[0]!]);
    expect(r.code, show(r)).toBe(0);
    expect(r.stdout).toContain('was        (unknown');
  });

  it('NOT_FOUND: an unknown meeting (exit 4)', async () => {
    const r = await cli([
      'reschedule',
      '00000000-0000-4000-8000-000000000000',
      '--start',
      '2030-01-07T15:00:00Z',
      '--json',
    ]);
    expect(r.code, show(r)).toBe(4);
    expect(r.json().error).toMatchObject({
      code: 'NOT_FOUND',
      status: 404,
      hint: expect.stringContaining('check the id'),
    });
  });

  it("CONFLICT: the host is not free then; the event's nearest free times are offered, labelled as the event's (exit 5)", async () => {
    const m = await booked();
    const offGrid = new Date(Date.parse(m.free[0]!) + 7 * 60_000).toISOString();
    const r = await cli(['reschedule', m.id, '--start', offGrid, '--tz', 'America/New_York']);
    expect(r.code, show(r)).toBe(5);
    expect(r.stderr).toContain('(CONFLICT, HTTP 409)');
    // Times for people: the server's instant in the user's zone, as the tables show it; no raw ISO but in --start values.
    const local = (iso: string) =>
      DateTime.fromISO(iso, { zone: 'America/New_York' }).toFormat('yyyy-MM-dd HH:mm ZZZZ');
    expect(r.stderr).toContain(`${local(offGrid)} is not available`);
    expect(r.stderr.replace(/--start \S+/g, '')).not.toMatch(/\d{4}-\d\d-\d\dT\d\d:\d\d/);
    // The nearest free times are offered, as book does after SLOT_TAKEN: the event's (all its
    // hosts'), said so, since this meeting's host may not take them all (issue 43).
    const offered = [
      ...r.stderr.matchAll(/^ {2}- free for the event: (\d{4}-\d\d-\d\d \d\d:\d\d E[SD]T) {3}--start (\S+)$/gm),
    ];
    expect(offered.length, r.stderr).toBeGreaterThan(0);
    for (const [, shown, iso] of offered) expect(shown).toBe(local(iso!));
    expect(r.stderr).toContain(
      `hint: these are the event's free times (all its hosts'); this meeting's host may not take all of them: schedctl reschedule ${m.id} --start <time>`,
    );
    const j = await cli(['reschedule', m.id, '--start', offGrid, '--json']);
    const error = j.json().error;
    expect(error).toMatchObject({ code: 'CONFLICT', status: 409 });
    // --json keeps ISO 8601.
    expect(error.message).toContain(offGrid);
    expect(error.details.some((d: string) => /^free for the event: \S+Z {3}--start \S+Z$/.test(d))).toBe(true);
    expect((await t.sb.state()).meetings[0]!.date).toBe(m.date);
  });

  it('a lost response is exit 7, saying to check the meeting before trying again', async () => {
    const m = await bookedAtServer();
    await t.sb.fault({ method: 'PATCH', path: PATCH, fault: 'stall-after-commit' });
    const r = await cli(['reschedule', m.id, '--start', m.free[0]!, '--timeout', '1', '--json']);
    expect(r.code, show(r)).toBe(7);
    expect(r.json().error).toMatchObject({
      code: 'OUTCOME_UNKNOWN',
      hint: expect.stringContaining('check the meeting'),
    });
    expect((await t.sb.state()).requests.filter((q) => q.method === 'PATCH')).toHaveLength(1);
  });

  it.each([
    ['INVALID_REQUEST', 400, 2],
    ['RATE_LIMITED', 429, 6],
  ])('%s (HTTP %i) from the server gives exit %i', async (code, status, exit) => {
    const m = await bookedAtServer();
    await t.sb.fault({ method: 'PATCH', path: PATCH, fault: 'status', status, code, retryAfter: 100_000 });
    const r = await cli(['reschedule', m.id, '--start', m.free[0]!, '--json']);
    expect(r.code, show(r)).toBe(exit);
    expect(r.json().error).toMatchObject({ code, status });
  });

  it('INTERNAL_ERROR is an unknown outcome, not retried (exit 7)', async () => {
    const m = await bookedAtServer();
    await t.sb.fault({ method: 'PATCH', path: PATCH, fault: 'status', status: 500, code: 'INTERNAL_ERROR', count: 5 });
    const r = await cli(['reschedule', m.id, '--start', m.free[0]!, '--json']);
    expect(r.code, show(r)).toBe(7);
    expect(r.json().error.message).toContain('INTERNAL_ERROR');
    expect((await t.sb.state()).requests.filter((q) => q.method === 'PATCH')).toHaveLength(1);
  });

  it.each([
    ['revoked', 'INVALID_API_KEY', 401],
    ['readOnly', 'MISSING_SCOPE', 403],
  ] as const)('a %s key gets %s (exit 3)', async (key, code, status) => {
    const m = await bookedAtServer();
    const r = await cli(['reschedule', m.id, '--start', m.free[0]!, '--json'], { key });
    expect(r.code, show(r)).toBe(3);
    expect(r.json().error).toMatchObject({ code, status });
  });

  it('without --start and without a TTY, fails naming --start before any request (exit 2)', async () => {
    const r = await cli(['reschedule', '00000000-0000-4000-8000-000000000000']);
    expect(r.code, show(r)).toBe(2);
    expect(r.stderr).toContain('missing --start');
    const bad = await cli(['reschedule', 'not-a-uuid', '--start', 'tomorrow']);
    expect(bad.code, show(bad)).toBe(2);
    expect(bad.stderr).toContain('<meeting-id>');
    const badTime = await cli(['reschedule', '00000000-0000-4000-8000-000000000000', '--start', 'soonish', '--json']);
    expect(badTime.code).toBe(2);
    expect(badTime.json().error).toMatchObject({ code: 'USAGE', message: expect.stringContaining('--start') });
    expect(await t.sb.requestCount()).toBe(0);
  });
});

/** The terminal-only picker, driven in-process (a subprocess has no TTY) with typed keys. */
const pick = (args: string[], answers: Answer[]) =>
  onTerminal(args, answers, { sb: t.sb, configDir: t.dir, env: { TZ: 'UTC' } });

describe('reschedule --email with several meetings on record', () => {
  it('without a terminal: exit 2, the meetings listed with their ids (objects in --json)', async () => {
    const first = await booked();
    const s = await t.sb.slots('intro-call', 14);
    const second = await cli([
      'book',
      'intro-call',
      '--start',
      s.slots[0]!,
      '--reservation',
      s.reservationId,
      '--email',
      'lead@acme.example',
      '--rebook',
      '--json',
    ]);
    expect(second.code, show(second)).toBe(0);
    const r = await cli(['reschedule', '--email', 'lead@acme.example', '--start', 'tomorrow 15:00', '--json']);
    expect(r.code, show(r)).toBe(2);
    const error = r.json<{ error: { message: string; details: Array<Record<string, string>> } }>().error;
    expect(error.message).toContain('2 upcoming meetings of lead@acme.example are on record');
    expect(error.details).toHaveLength(2);
    // Each with its `line` too (issue 46): the string a person sees, what `details` holds for every other error.
    for (const d of error.details) expect(Object.keys(d).sort()).toEqual(['date', 'event', 'id', 'line', 'title']);
    for (const d of error.details) expect(d.line).toContain(d.id);
    expect(error.details.map((d) => d.id).sort()).toEqual([first.id, second.json().meeting.id].sort());
    // With --json the document is the report: stderr has its headline only, the meetings once (in the document).
    expect(r.stderr).toMatch(/^error: 2 upcoming meetings of lead@acme\.example are on record[^\n]*\n$/);
    const human = await cli(['reschedule', '--email', 'lead@acme.example', '--start', 'tomorrow 15:00']);
    // For people: a line each, with its id.
    expect(human.stderr).toContain(`  - `);
    expect(human.stderr).toContain(first.id);
    expect(human.stderr).toContain(second.json().meeting.id);
  });
});

describe('a moment needs a time: a day without a time of day is never its midnight', () => {
  it('reschedule --start <a day> without a terminal tries the free times of that day (issue 43), never its midnight', async () => {
    const m = await booked();
    // A working day two or more days ahead, not the meeting's own (its first free time is the
    // meeting's: a move there sends nothing).
    const meetingDay = DateTime.fromISO(m.date, { zone: 'UTC' });
    let day = DateTime.utc().plus({ days: 2 }).startOf('day');
    while (day.weekday > 5 || day.hasSame(meetingDay, 'day')) day = day.plus({ days: 1 });
    const said = day.toFormat('ccc LLL d').toLowerCase();
    const r = await cli(['reschedule', '--email', 'lead@acme.example', '--start', said, '--tz', 'UTC', '--json']);
    expect(r.code, show(r)).toBe(0);
    const moved = DateTime.fromISO(r.json().meeting.date, { zone: 'UTC' });
    expect(moved.hasSame(day, 'day')).toBe(true);
    expect(moved.toFormat('HH:mm')).not.toBe('00:00');
    expect(r.json().tried).toEqual([{ startTime: r.json().meeting.date, answer: 'moved' }]);
    expect((await t.sb.state()).meetings.find((x) => x.id === m.id)!.date).toBe(r.json().meeting.date);
  });

  // book reads reschedule's grammar (issue 54): a day books its first free time, never its midnight.
  it('route --slot next tuesday is refused (exit 2); book --start tomorrow books its first free time', async () => {
    const route = await cli([
      'route',
      '--trigger',
      'Inbound demo request',
      '--email',
      'lead@acme.example',
      '--slot',
      'next tuesday',
    ]);
    expect(route.code, show(route)).toBe(2);
    expect(route.stderr).toContain('invalid --slot "next tuesday": a day without a time of day');
    expect(await t.sb.requestCount()).toBe(0);
    const next = nextWorkday(); // "monday" when tomorrow is a weekend (no free times then)
    const book = await cli([
      'book',
      'quarterly-review',
      '--start',
      next.word,
      '--email',
      'lead@acme.example',
      '--json',
    ]);
    expect(book.code, show(book)).toBe(0);
    const at = DateTime.fromISO(book.json<{ meeting: { date: string } }>().meeting.date, { zone: 'UTC' });
    expect(at.hasSame(next.day, 'day')).toBe(true);
    expect(at.toFormat('HH:mm')).not.toBe('00:00');
  });

  it('a range flag keeps reading a bare day as its start: slots --from tomorrow', async () => {
    const r = await cli([
      'slots',
      'quarterly-review',
      '--from',
      'tomorrow',
      '--to',
      'tomorrow',
      '--tz',
      'UTC',
      '--json',
    ]);
    expect(r.code, show(r)).toBe(0);
    const tomorrow = DateTime.utc().plus({ days: 1 }).toISODate();
    for (const slot of r.json<{ slots: string[] }>().slots) expect(slot.slice(0, 10)).toBe(tomorrow);
  });
});

describe('reschedule on a terminal without --start', () => {
  it("lists free times of the meeting's event (from the journal), lets the user pick, confirms, then moves", async () => {
    const m = await booked();
    // Down arrow to the second free time, Enter; then Enter to accept the confirmation.
    const r = await pick(
      ['reschedule', m.id, '--tz', 'UTC'],
      [
        ['pick a day', ENTER],
        ['← other days', `${DOWN}${ENTER}`],
        ['Move "', ENTER],
      ],
    );
    expect(r.code, r.stderr).toBe(0);
    const moved = (await t.sb.state()).meetings[0]!;
    expect(moved.date).not.toBe(m.date);
    // The confirmation shows the move, the old time labelled as what schedctl last recorded.
    // Full dates and the zone, not a bare 15:00.
    const full = (iso: string) => `${DateTime.fromISO(iso, { zone: 'UTC' }).toFormat('ccc yyyy-MM-dd HH:mm')} UTC`;
    const plain = plainScreen(r.stderr);
    // The meeting is named by its title, date and host, not its id.
    const short = DateTime.fromISO(m.date, { zone: 'UTC' }).toFormat('ccc d LLL HH:mm');
    expect(plain).toMatch(
      new RegExp(
        `Move "Quarterly Business Review with [^"]+" \\(${short}, host [^)]+\\) from ${full(m.date)} \\(as schedctl last recorded it\\) to ${full(moved.date)}\\?`,
      ),
    );
    expect(plain).not.toContain(`Move meeting ${m.id}`);
    expect(plain).toMatch(new RegExp(`New time for "Quarterly Business Review with [^"]+" \\(${short}, host `));
    expect(r.stdout).toContain(`Rescheduled meeting ${m.id}`);
  });

  it('does nothing when the confirmation is declined', async () => {
    const m = await booked();
    const r = await pick(
      ['reschedule', m.id],
      [
        ['pick a day', ENTER],
        ['← other days', ENTER],
        ['Move "', `n${ENTER}`],
      ],
    );
    expect(r.code).toBe(130);
    expect((await t.sb.state()).meetings[0]!.date).toBe(m.date);
    expect((await t.sb.state()).requests.filter((q) => q.method === 'PATCH')).toHaveLength(0);
  });

  it('asks for the event when the meeting is not in the local record, instead of failing', async () => {
    const r = await pick(
      ['reschedule', '00000000-0000-4000-8000-000000000000'],
      [
        ['Event or scheduling link', `intro-call${ENTER}`],
        ['pick a day', ENTER],
        ['← other days', ENTER],
        ['Move "', `n${ENTER}`],
      ],
    );
    expect(r.code, r.stderr).toBe(130);
    expect(r.stderr).not.toContain('missing --event');
    expect((await t.sb.state()).requests.filter((q) => q.method === 'PATCH')).toHaveLength(0);
  });
});
