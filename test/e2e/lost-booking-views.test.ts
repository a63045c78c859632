/**
 * Before a lost booking is re-run, every view says so (issue 52 finding 7): a booking sent whose
 * answer was lost almost certainly made a meeting, and `book` for the lead refuses
 * (LEAD_OUTCOME_UNKNOWN); `meetings ls/show`, `reschedule --email` and the MCP tools must not
 * say "no meeting" meanwhile, and must say how to confirm it (the same booking again).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bookSlotArgs, demoRouteFirstArgs } from '../helpers/args.js';
import { show, type RunResult } from '../helpers/cli.js';
import { shown, useMcpSessions } from '../helpers/mcp-client.js';
import { useSandbox } from '../helpers/sandbox.js';

const t = useSandbox({ holdSeconds: 60 });
const mcp = useMcpSessions(t);
const BOOK_PATH = '/v1/scheduling/meetings';

const cli = (args: string[]): Promise<RunResult> => t.sb.cli(args, { configDir: t.dir, env: { SCHEDCTL_RATE: '0' } });

/** A `book` of the lead whose answer is lost (the sandbox books, then drops the connection): exit 7. */
async function lostBooking(
  email: string,
  extra: string[] = [],
): Promise<{ args: string[]; reservationId: string; start: string }> {
  const before = (await t.sb.state()).meetings.filter((m) => m.personEmail === email).length;
  await t.sb.fault({ method: 'POST', path: BOOK_PATH, fault: 'drop-after-commit' });
  const s = await t.sb.slots('intro-call', 14);
  const args = [...bookSlotArgs('intro-call', s.slots[1]!, s.reservationId, email), ...extra];
  const lost = await cli([...args, '--json']);
  expect(lost.code, show(lost)).toBe(7);
  expect((await t.sb.state()).meetings.filter((m) => m.personEmail === email)).toHaveLength(before + 1);
  return { args, reservationId: s.reservationId, start: s.slots[1]! };
}

interface Listed {
  id: string | null;
  source: string;
  status: string;
  personEmail: string;
  date: string;
  confirm?: string;
  sentAt?: string;
}

describe('issue 52 finding 7: a booking whose answer was lost, before it is re-run', () => {
  it('meetings ls lists it as unresolved, says it almost certainly booked and how to confirm (human and --json)', async () => {
    const email = 'ned@acme.example';
    const lost = await lostBooking(email);

    const ls = await cli(['meetings', 'ls', '--email', email, '--tz', 'UTC']);
    expect(ls.code, show(ls)).toBe(0);
    expect(ls.stderr + ls.stdout).not.toContain('no upcoming meetings on record');
    expect(ls.stdout).toContain('unknown: answer lost');
    expect(ls.stdout).toContain('unresolved');
    expect(ls.stderr).toMatch(
      /was sent \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC: its answer was lost, and it almost certainly booked/,
    );
    expect(ls.stderr).toContain(
      `to confirm, send the same booking again (it cannot book twice): schedctl book intro-call`,
    );
    expect(ls.stderr).toContain(`--reservation ${lost.reservationId}`);

    const doc = (await cli(['meetings', 'ls', '--email', email, '--json'])).json() as Listed[];
    expect(doc).toEqual([
      expect.objectContaining({
        id: null,
        source: 'unresolved',
        status: 'unknown',
        personEmail: email,
        date: lost.start,
        sentAt: expect.any(String),
        confirm: expect.stringContaining(`--reservation ${lost.reservationId}`),
      }),
    ]);

    // The same booking again resolves it: the view then shows the meeting, nothing unresolved.
    const again = await cli([...lost.args, '--json']);
    expect(again.code, show(again)).toBe(0);
    const after = (await cli(['meetings', 'ls', '--email', email, '--json'])).json() as Listed[];
    expect(after.map((m) => m.source)).not.toContain('unresolved');
    expect(after).toHaveLength(1);
    expect((await t.sb.state()).meetings.filter((m) => m.personEmail === email)).toHaveLength(1);
  });

  it('a lost route booking says to run the same route again', async () => {
    const email = 'ned-routed@acme.example';
    await t.sb.fault({ method: 'POST', path: BOOK_PATH, fault: 'drop-after-commit' });
    const routed = await cli([...demoRouteFirstArgs(email), '--json']);
    expect(routed.code, show(routed)).toBe(7);
    const ls = await cli(['meetings', 'ls', '--email', email]);
    expect(ls.code, show(ls)).toBe(0);
    expect(ls.stderr).toContain('run the same route again for this lead with the same answers');
  });

  it('meetings show of a meeting not on record names the lost booking it may be', async () => {
    const email = 'ned-show@acme.example';
    const lost = await lostBooking(email);
    const r = await cli(['meetings', 'show', '00000000-0000-4000-8000-000000000000', '--json']);
    expect(r.code, show(r)).toBe(4);
    const hint = (r.json() as { error: { hint: string } }).error.hint;
    expect(hint).toContain(`a booking of ${email} on intro-call`);
    expect(hint).toContain('its answer was lost, and it almost certainly booked');
    expect(hint).toContain(`--reservation ${lost.reservationId}`);
  });

  it("meetings show of the lead's meeting adds the lead's booking whose answer was lost", async () => {
    const email = 'ned-two@acme.example';
    const s = await t.sb.slots('quarterly-review', 14);
    const first = await cli([...bookSlotArgs('quarterly-review', s.slots[1]!, s.reservationId, email), '--json']);
    expect(first.code, show(first)).toBe(0);
    const id = (first.json() as { meeting: { id: string } }).meeting.id;
    const lost = await lostBooking(email, ['--rebook']);
    const r = await cli(['meetings', 'show', id]);
    expect(r.code, show(r)).toBe(0);
    expect(r.stdout).toContain(`Meeting ${id}`);
    expect(r.stderr).toContain(`unresolved: a booking of ${email} on intro-call`);
    expect(r.stderr).toContain(`--reservation ${lost.reservationId}`);
  });

  it('reschedule --email says the booking was sent and its answer lost (LEAD_OUTCOME_UNKNOWN), not "no meeting" with a team-state hint', async () => {
    const email = 'ned-move@acme.example';
    const lost = await lostBooking(email);
    const r = await cli(['reschedule', '--email', email, '--start', 'tomorrow 10:00', '--json']);
    expect(r.code, show(r)).toBe(5);
    const error = (r.json() as { error: { code: string; message: string; hint: string } }).error;
    expect(error.code).toBe('LEAD_OUTCOME_UNKNOWN');
    expect(error.message).toContain('its answer was lost, and it almost certainly booked');
    expect(error.message).toContain('nothing was moved');
    expect(error.hint).toContain(`--reservation ${lost.reservationId}`);
    expect(error.hint).not.toContain('team state');
    expect((await t.sb.state()).requests.filter((q) => q.method === 'PATCH')).toHaveLength(0);

    const human = await cli(['reschedule', '--email', email, '--start', 'tomorrow 10:00']);
    expect(human.code, show(human)).toBe(5);
    expect(human.stderr).not.toContain('no upcoming meeting');

    // A `reschedule --file` row by that email says the same, before any request.
    const moves = join(t.dir, 'moves.csv');
    writeFileSync(moves, `meeting,email,start,tz\n,${email},2030-01-07 10:00,UTC\n`);
    const bulk = await cli(['reschedule', '--file', moves]);
    expect(bulk.code, show(bulk)).toBe(2);
    expect(bulk.stderr).toMatch(
      /line 2: email: a booking of ned-move@acme\.example on intro-call .* its answer was lost, and it almost certainly booked/,
    );
    expect(bulk.stderr).toContain(`--reservation ${lost.reservationId}`);
    expect((await t.sb.state()).requests.filter((q) => q.method === 'PATCH')).toHaveLength(0);
  });

  it('the MCP tools list_meetings and reschedule_meeting say it, with the call that confirms it', async () => {
    const email = 'ned-mcp@acme.example';
    const lost = await lostBooking(email);
    const session = await mcp();

    const listed = await session.call('list_meetings', { email, tz: 'UTC' });
    expect(listed.isError, shown(listed)).toBe(false);
    expect(listed.text).toContain('unresolved');
    expect(listed.text).toContain('its answer was lost, and it almost certainly booked');
    expect(listed.text).toContain(`book_meeting again with event intro-call`);
    expect(listed.text).toContain(`reservation_id ${lost.reservationId}`);
    expect(listed.doc.meetings).toEqual([
      expect.objectContaining({ id: null, source: 'unresolved', status: 'unknown', personEmail: email }),
    ]);

    const moved = await session.call('reschedule_meeting', { email, start: 'tomorrow 10:00', tz: 'UTC' });
    expect(moved.isError, shown(moved)).toBe(true);
    expect(moved.text).toContain('LEAD_OUTCOME_UNKNOWN');
    expect(moved.text).toContain('its answer was lost, and it almost certainly booked');
    expect(moved.text).toContain('repeat that earlier call exactly as it was');
    expect(moved.text).not.toContain('rebook');
  });
});
