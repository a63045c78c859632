/**
 * `meetings history <email>`: a lead's record seen whole (issue 52), end to end against the
 * sandbox: what each answer proved, as the ledger keeps it, in time order.
 */
import { describe, expect, it } from 'vitest';
import { bookSlotArgs, demoFireArgs, demoRouteFirstArgs } from '../helpers/args.js';
import { show, type RunResult } from '../helpers/cli.js';
import { shown, useMcpSessions } from '../helpers/mcp-client.js';
import { useSandbox } from '../helpers/sandbox.js';

const t = useSandbox({ holdSeconds: 60 });
const mcp = useMcpSessions(t);
const BOOK_PATH = '/v1/scheduling/meetings';
const PATCH_PATH = '/v1/scheduling/meetings/*';

const cli = (args: string[]): Promise<RunResult> => t.sb.cli(args, { configDir: t.dir, env: { SCHEDCTL_RATE: '0' } });

interface Entry {
  at: string;
  kind: string;
  by?: string;
  [k: string]: unknown;
}
async function history(email: string): Promise<Entry[]> {
  const r = await cli(['meetings', 'history', email, '--json']);
  expect(r.code, show(r)).toBe(0);
  const doc = r.json() as { email: string; workspace: string; entries: Entry[] };
  expect(doc.email).toBe(email);
  expect(doc.workspace).toEqual(expect.any(String));
  const times = doc.entries.map((e) => Date.parse(e.at));
  expect(times).toEqual([...times].sort((a, b) => a - b));
  return doc.entries;
}
const kinds = (entries: Entry[]) => entries.map((e) => e.kind);

/** A lead booked through `book` on quarterly-review, with the event's other free times to move to. */
async function booked(email: string): Promise<{ id: string; free: string[] }> {
  const s = await t.sb.slots('quarterly-review', 14);
  const r = await cli([...bookSlotArgs('quarterly-review', s.slots[1]!, s.reservationId, email), '--json']);
  expect(r.code, show(r)).toBe(0);
  return { id: (r.json() as { meeting: { id: string } }).meeting.id, free: s.slots.slice(2) };
}

describe('meetings history', () => {
  it("shows a routed lead's fire, its answer, the booking that booked and the meeting with who booked it", async () => {
    const email = 'hist-routed@acme.example';
    const routed = await cli([...demoRouteFirstArgs(email), '--json']);
    expect(routed.code, show(routed)).toBe(0);
    const id = (routed.json() as { meeting: { id: string } }).meeting.id;

    const entries = await history(email);
    expect(kinds(entries)).toEqual(expect.arrayContaining(['fire', 'fire_answer', 'booking', 'meeting']));
    expect(entries.find((e) => e.kind === 'fire')).toMatchObject({ answer: 'received' });
    expect(entries.find((e) => e.kind === 'booking')).toMatchObject({ outcome: 'booked', meetingId: id, sent: true });
    expect(entries.find((e) => e.kind === 'meeting')).toMatchObject({
      meetingId: id,
      source: 'booked',
      by: expect.stringMatching(/.+@.+/),
    });
    expect(kinds(entries).indexOf('fire')).toBeLessThan(kinds(entries).indexOf('meeting'));

    const human = await cli(['meetings', 'history', email, '--tz', 'UTC']);
    expect(human.code, show(human)).toBe(0);
    expect(human.stderr).toContain(`The record of ${email} in workspace`);
    expect(human.stdout).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC {2}fire /m);
    expect(human.stdout).toContain(`booked meeting ${id}`);
    expect(human.stdout).toMatch(/\[by .+@.+\]/);
    // The lead as the ledger knows it, however it is typed.
    const shouted = await cli(['meetings', 'history', email.toUpperCase(), '--json']);
    expect(shouted.json()).toMatchObject({ email });
  });

  it('shows a lost booking answer as unknown with how to confirm, then what the re-run proved (issue 52 finding 7)', async () => {
    const email = 'hist-lost@acme.example';
    await t.sb.fault({ method: 'POST', path: BOOK_PATH, fault: 'drop-after-commit' });
    const s = await t.sb.slots('intro-call', 14);
    const args = [...bookSlotArgs('intro-call', s.slots[1]!, s.reservationId, email), '--json'];
    const lost = await cli(args);
    expect(lost.code, show(lost)).toBe(7);

    const before = (await history(email)).filter((e) => e.kind === 'booking');
    expect(before).toEqual([
      expect.objectContaining({
        outcome: 'unknown',
        lostBy: 'no_answer',
        sent: true,
        reservationId: s.reservationId,
        confirm: expect.stringContaining(`--reservation ${s.reservationId}`),
      }),
    ]);
    const human = await cli(['meetings', 'history', email]);
    expect(human.stdout).toContain('its answer was lost: outcome unknown, it almost certainly booked');

    const again = await cli(args);
    expect(again.code, show(again)).toBe(0);
    const after = await history(email);
    expect(after.filter((e) => e.kind === 'booking').map((e) => e.outcome)).toContain('already_booked');
    expect(after.filter((e) => e.kind === 'booking').some((e) => e.outcome === 'unknown')).toBe(false);
    expect(after.find((e) => e.kind === 'booking_settled')).toMatchObject({
      outcome: 'already_booked',
      event: 'intro-call',
    });
  });

  it('shows a move with the machine that made it', async () => {
    const email = 'hist-move@acme.example';
    const m = await booked(email);
    const moved = await cli(['reschedule', m.id, '--start', m.free[0]!, '--json']);
    expect(moved.code, show(moved)).toBe(0);
    const entries = await history(email);
    const move = entries.find((e) => e.kind === 'move');
    expect(move).toMatchObject({ meetingId: m.id, to: m.free[0], by: expect.stringMatching(/.+@.+/) });
    // The booking shows the time it asked for, not the time the meeting moved to.
    expect(entries.find((e) => e.kind === 'booking')?.startTime).toBe(move?.from);
    expect(move?.from).not.toBe(m.free[0]);
  });

  it('shows a move the host refused (409 CONFLICT)', async () => {
    const email = 'hist-refused@acme.example';
    const m = await booked(email);
    await t.sb.fault({ method: 'PATCH', path: PATCH_PATH, fault: 'status', status: 409, code: 'CONFLICT' });
    const refused = await cli(['reschedule', m.id, '--start', m.free[0]!, '--json']);
    expect(refused.code, show(refused)).toBe(5);
    const entries = await history(email);
    expect(entries.find((e) => e.kind === 'move_refused')).toMatchObject({ meetingId: m.id, startTime: m.free[0] });
    expect(kinds(entries)).not.toContain('move');
    const human = await cli(['meetings', 'history', email]);
    expect(human.stdout).toContain('refused (409 CONFLICT');
  });

  it('shows the 404 answered to a move, and meetings ls lists the meeting with it without --all (issue 52 finding 2)', async () => {
    const email = 'hist-404@acme.example';
    const m = await booked(email);
    await t.sb.fault({ method: 'PATCH', path: PATCH_PATH, fault: 'status', status: 404, code: 'NOT_FOUND' });
    const gone = await cli(['reschedule', m.id, '--start', m.free[0]!, '--json']);
    expect(gone.code, show(gone)).toBe(4);

    const entries = await history(email);
    expect(entries.find((e) => e.kind === 'not_found')).toMatchObject({ meetingId: m.id });
    const human = await cli(['meetings', 'history', email]);
    expect(human.stdout).toContain(`the API answered 404 for meeting ${m.id}`);

    const ls = await cli(['meetings', 'ls', '--email', email, '--tz', 'UTC']);
    expect(ls.code, show(ls)).toBe(0);
    expect(ls.stdout).toContain(m.id);
    expect(ls.stdout).toMatch(/404 since \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/);
    expect(ls.stderr).toMatch(new RegExp(`the API answered 404 for meeting ${m.id} on \\d{4}-\\d{2}-\\d{2}`));
    const doc = (await cli(['meetings', 'ls', '--email', email, '--json'])).json() as { id: string; goneAt?: string }[];
    expect(doc).toEqual([expect.objectContaining({ id: m.id, goneAt: expect.any(String) })]);

    const session = await mcp();
    const listed = await session.call('list_meetings', { email, tz: 'UTC' });
    expect(listed.isError, shown(listed)).toBe(false);
    expect(listed.text).toContain('the API answered 404 for it on');
    expect(listed.doc.meetings).toEqual([expect.objectContaining({ id: m.id, goneAt: expect.any(String) })]);
  });

  it('shows a fire whose answer was lost as sent with no answer', async () => {
    const email = 'hist-fire-lost@acme.example';
    await t.sb.fault({ method: 'POST', path: '/v1/triggers/*', fault: 'drop-after-commit' });
    const fired = await cli([...demoFireArgs(email), '--json']);
    expect(fired.code, show(fired)).toBe(7);
    const entries = await history(email);
    expect(entries).toEqual([expect.objectContaining({ kind: 'fire', state: 'sent', answer: 'none' })]);
    const human = await cli(['meetings', 'history', email]);
    expect(human.stdout).toContain('sent, no answer on record');
  });

  it('says so when nothing is on record, refuses an address that is not one, and meetings show of an email points here (exit 2)', async () => {
    const none = await cli(['meetings', 'history', 'nobody@acme.example']);
    expect(none.code, show(none)).toBe(0);
    expect(none.stderr).toContain('nothing on record for this lead');
    expect((await cli(['meetings', 'history', 'nobody@acme.example', '--json'])).json()).toMatchObject({
      entries: [],
    });
    const bad = await cli(['meetings', 'history', 'not-an-email']);
    expect(bad.code, show(bad)).toBe(2);
    const shownByEmail = await cli(['meetings', 'show', 'nobody@acme.example']);
    expect(shownByEmail.code, show(shownByEmail)).toBe(2);
    expect(shownByEmail.stderr).toContain('schedctl meetings history nobody@acme.example');
  });
});
