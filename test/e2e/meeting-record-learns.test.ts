/**
 * The record learns the server's answers (issue 43, findings 2 and 3), end to end against the
 * sandbox: a meeting booked under a lost answer is described for what it is (it exists, its id
 * was never received) and, once moved by its id, is listed with it; a meeting the server forgot
 * (the sandbox reset: a restart without --state) is marked gone by the move's 404, and the lead
 * then routes anew.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { show, type RunResult } from '../helpers/cli.js';
import { demoRouteArgs } from '../helpers/args.js';
import { ledgerRows } from '../helpers/ledger-db.js';
import { type McpSession, startMcp } from '../helpers/mcp-client.js';
import { useSandbox } from '../helpers/sandbox.js';

const t = useSandbox();
let session: McpSession | undefined;
afterEach(async () => {
  await session?.close();
  session = undefined;
});
const BOOK_PATH = '/v1/scheduling/meetings';

const cli = (args: string[], env: Record<string, string> = {}): Promise<RunResult> =>
  t.sb.cli(args, { configDir: t.dir, env: { SCHEDCTL_RATE: '0', TZ: 'UTC', ...env } });
const route = (email: string, extra: string[] = []) =>
  cli([...demoRouteArgs(email, 'emea'), '--slot', 'first', '--yes', '--days', '14', ...extra]);

/** The free times of the Sales EMEA link (the host the demo trigger routes an emea lead to). */
async function emeaSlots(): Promise<string[]> {
  const from = new Date(Date.now() + 86_400_000);
  const res = await fetch(`${t.sb.baseUrl}/v1/scheduling/events/sales-emea/slots`, {
    method: 'POST',
    headers: { authorization: `Bearer ${t.sb.keys.full}`, 'content-type': 'application/json' },
    body: JSON.stringify({ start: from.toISOString(), end: new Date(from.getTime() + 14 * 86_400_000).toISOString() }),
  });
  return ((await res.json()) as { slots: string[] }).slots;
}

interface Listed {
  id: string | null;
  personEmail: string;
  date: string;
  source: string;
  status: string;
  goneAt?: string;
  history: unknown[];
}

describe('a meeting booked under a lost answer', () => {
  it('is described as existing without its id, and is listed with its id once moved by it', async () => {
    await t.sb.fault({ method: 'POST', path: BOOK_PATH, fault: 'drop-after-commit' });
    const lost = await route('joan@acme.example', ['--json']);
    expect(lost.code, show(lost)).toBe(7);
    const again = await route('joan@acme.example', ['--json']);
    expect(again.code, show(again)).toBe(0);
    expect(again.json()).toMatchObject({ status: 'already_booked' });
    const [meeting] = (await t.sb.state()).meetings;
    expect((await t.sb.state()).meetings).toHaveLength(1);

    const listed = await cli(['meetings', 'ls', '--email', 'joan@acme.example']);
    expect(listed.code, show(listed)).toBe(0);
    expect(listed.stdout).toContain('(unknown: answer lost)');
    expect(listed.stderr).toContain('its id was never received');
    session = await startMcp({
      configDir: t.dir,
      env: { SCHEDCTL_API_KEY: t.sb.keys.full, SCHEDCTL_BASE_URL: t.sb.baseUrl },
    });
    const tool = await session.call('list_meetings', { email: 'joan@acme.example' });
    expect(tool.text).toContain('its id was never received');
    const byTool = await session.call('reschedule_meeting', { email: 'joan@acme.example', start: 'tomorrow 10:00' });
    expect(byTool.isError, byTool.text).toBe(true);
    expect(byTool.text).toContain('MEETING_ID_UNKNOWN');
    expect(byTool.text).toContain('ask the person for the meeting id');
    expect(tool.doc.meetings).toEqual([expect.objectContaining({ id: null, personEmail: 'joan@acme.example' })]);

    // reschedule --email: the meeting exists, its id was not received, how to move it.
    const byEmail = await cli(['reschedule', '--email', 'joan@acme.example', '--start', 'tomorrow 10:00']);
    expect(byEmail.code, show(byEmail)).toBe(4);
    expect(byEmail.stderr).toContain('joan@acme.example has a meeting at');
    expect(byEmail.stderr).toContain('its id was never received');
    expect(byEmail.stderr).toContain('schedctl reschedule <meeting-id>');
    expect(byEmail.stderr).not.toContain('no upcoming meeting');

    // A re-run is answered from the record: never worded as an API answer.
    const before = await t.sb.requestCount();
    const rerun = await route('joan@acme.example');
    expect(rerun.code, show(rerun)).toBe(0);
    expect(rerun.stdout).toContain('Already booked');
    expect(rerun.stdout).toContain('its meeting id was never received');
    expect(rerun.stdout).not.toMatch(/API answered ON_RECORD/);
    const sent = (await t.sb.state()).requests.slice(before);
    expect(
      sent.every((r) => r.method === 'GET'),
      JSON.stringify(sent),
    ).toBe(true);

    // Moved by its id (from the scheduling app): the record learns the id.
    const to = (await emeaSlots()).find((s) => Date.parse(s) !== Date.parse(meeting!.date))!;
    const moved = await cli(['reschedule', meeting!.id, '--start', to]);
    expect(moved.code, show(moved)).toBe(0);
    const after = await cli(['meetings', 'ls', '--email', 'joan@acme.example', '--json']);
    expect(after.code, show(after)).toBe(0);
    const rows = after.json() as Listed[];
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ id: meeting!.id, date: to, source: 'recovered' });
    expect(rows[0]!.history).toHaveLength(1);

    // The route's re-run now names the meeting by its id; still nothing booked.
    const named = await route('joan@acme.example');
    expect(named.code, show(named)).toBe(0);
    expect(named.stdout).toContain(`has meeting ${meeting!.id}`);
    expect((await t.sb.state()).meetings).toHaveLength(1);
  });
});

describe('another meeting of the same lead and event (issue 52 finding 3)', () => {
  it("is never adopted as a lost booking's id: the move goes ahead, the re-run still reports its own booking", async () => {
    // X: joan's meeting on the same event, booked elsewhere (the scheduling app) ten minutes earlier.
    const first = (await emeaSlots())[0]!;
    const { reservationId } = await t.sb.slots('sales-emea', 14);
    const res = await fetch(`${t.sb.baseUrl}${BOOK_PATH}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.sb.keys.full}`, 'content-type': 'application/json' },
      body: JSON.stringify({ event: 'sales-emea', startTime: first, reservationId, personEmail: 'joan@acme.example' }),
    });
    expect(res.status).toBe(201);
    const x = (await res.json()) as { id: string; date: string };
    await t.sb.advance(600);

    await t.sb.fault({ method: 'POST', path: BOOK_PATH, fault: 'drop-after-commit' });
    const lost = await route('joan@acme.example', ['--json']);
    expect(lost.code, show(lost)).toBe(7);
    const again = await route('joan@acme.example', ['--json']);
    expect(again.code, show(again)).toBe(0);
    expect(again.json()).toMatchObject({ status: 'already_booked' });
    expect((await t.sb.state()).meetings).toHaveLength(2);

    const to = (await emeaSlots()).find((s) => ![x.date, first].some((d) => Date.parse(d) === Date.parse(s)))!;
    const moved = await cli(['reschedule', x.id, '--start', to]);
    expect(moved.code, show(moved)).toBe(0);
    const attempts = ledgerRows<{ meetingId?: string; outcome: string }>(t.dir, 'attempts');
    expect(attempts.some((a) => a.meetingId === x.id)).toBe(false);

    const rerun = await route('joan@acme.example');
    expect(rerun.code, show(rerun)).toBe(0);
    expect(rerun.stdout).toContain('its meeting id was never received');
    expect(rerun.stdout).not.toContain(x.id);
    expect((await t.sb.state()).meetings).toHaveLength(2);
    // The timeline: the lost booking proved booked without an id; X on record as moved, apart from it.
    const entries = (await cli(['meetings', 'history', 'joan@acme.example', '--json'])).json().entries as Array<
      Record<string, unknown>
    >;
    expect(entries.filter((e) => e.kind === 'booking' && e.meetingId === x.id)).toEqual([]);
    expect(entries).toContainEqual(
      expect.objectContaining({ kind: 'meeting', meetingId: x.id, source: 'rescheduled' }),
    );
  });
});

describe('a meeting the API answered 404 for (issue 52 finding 2)', () => {
  it('is noted, not freed: the next route refuses naming the 404 (exit 5), --rebook books anew', async () => {
    const booked = await route('ada@acme.example', ['--json']);
    expect(booked.code, show(booked)).toBe(0);
    const id = (booked.json() as { meeting: { id: string } }).meeting.id;

    // The server forgets it (a sandbox restarted without --state; a gateway's 404 looks the same).
    await t.sb.reset();
    const blind = await route('ada@acme.example');
    expect(blind.code, show(blind)).toBe(0);
    expect(blind.stdout).toContain('Already booked');

    const move = await cli(['reschedule', '--email', 'ada@acme.example', '--start', 'tomorrow 10:00']);
    expect(move.code, show(move)).toBe(4);
    const errorLine = move.stderr.split('\n').find((l) => l.startsWith('error:'));
    expect(errorLine).toContain(`the API answered 404 for meeting ${id}`);
    expect(errorLine).toContain('the lead is not freed by it');
    expect(move.stderr).toContain('schedctl route --trigger "Inbound demo request" --email ada@acme.example');

    // Listed for what it is, without --all too (issue 52 finding 2: a 404 is not "nothing").
    const upcoming = await cli(['meetings', 'ls', '--email', 'ada@acme.example']);
    expect(upcoming.stdout).toMatch(/404 since \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/);
    expect(upcoming.stderr).toContain(`the API answered 404 for meeting ${id} on`);
    const all = await cli(['meetings', 'ls', '--all', '--email', 'ada@acme.example']);
    expect(all.stdout).toMatch(/404 since \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/);
    const doc = (await cli(['meetings', 'ls', '--all', '--json'])).json() as Listed[];
    expect(doc).toEqual([expect.objectContaining({ id, goneAt: expect.any(String) })]);

    // The MCP tool says it in its own words.
    session = await startMcp({
      configDir: t.dir,
      env: { SCHEDCTL_API_KEY: t.sb.keys.full, SCHEDCTL_BASE_URL: t.sb.baseUrl },
    });
    const tool = await session.call('reschedule_meeting', { meeting_id: id, start: 'tomorrow 10:00', tz: 'UTC' });
    expect(tool.isError, tool.text).toBe(true);
    expect(tool.text).toContain(`the API answered 404 for meeting ${id}`);
    expect(tool.text).toContain('rebook: true');

    // reschedule --email says what the API answered.
    const again = await cli(['reschedule', '--email', 'ada@acme.example', '--start', 'tomorrow 10:00']);
    expect(again.code, show(again)).toBe(4);
    expect(again.stderr).toContain(`the API answered 404 for its meeting ${id}`);

    // One 404 does not free the lead: the route refuses, naming it, and sends nothing.
    const before = await t.sb.requestCount();
    const refused = await route('ada@acme.example', ['--json']);
    expect(refused.code, show(refused)).toBe(5);
    expect(refused.json()).toMatchObject({ error: { code: 'LEAD_HAS_MEETING' } });
    expect(refused.json().error.message).toContain(`the API answered 404 for it`);
    expect(await t.sb.requestCount()).toBeLessThanOrEqual(before + 1); // at most the trigger list
    const timeline = (await cli(['meetings', 'history', 'ada@acme.example', '--json'])).json();
    expect(timeline.entries).toContainEqual(expect.objectContaining({ kind: 'not_found', meetingId: id }));
    expect((await t.sb.state()).meetings).toHaveLength(0);

    const anew = await route('ada@acme.example', ['--json', '--rebook']);
    expect(anew.code, show(anew)).toBe(0);
    expect(anew.json()).toMatchObject({ status: 'booked' });
    expect((await t.sb.state()).meetings).toHaveLength(1);
    const listed = (await cli(['meetings', 'ls', '--email', 'ada@acme.example', '--json'])).json() as Listed[];
    expect(listed.filter((m) => m.goneAt === undefined)).toHaveLength(1);
    const attempts = ledgerRows<{ meetingId?: string; goneAt?: string }>(t.dir, 'attempts');
    expect(attempts.some((a) => a.goneAt !== undefined)).toBe(true);
  });
});
