/** The scriptable `schedctl route` end to end against the sandbox: outcomes, request economy, recovery, lost responses. */
import { ledgerRows } from '../helpers/ledger-db.js';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { strictSchemas } from '../../src/api/schemas.js';
import { assertNoSecretsInFiles, show, tempDir } from '../helpers/cli.js';
import { demoFireArgs, demoRouteArgs } from '../helpers/args.js';
import { useSandbox } from '../helpers/sandbox.js';

const t = useSandbox();

const cli = (args: string[]) => t.sb.cli(args, { configDir: t.dir });
const DEMO = demoRouteArgs();
const requests = async () =>
  (await t.sb.state()).requests.map((r) => `${r.method} ${r.path.replace(/[0-9a-f-]{36}/g, ':id')} ${r.status}`);

describe('route (scriptable)', () => {
  it('two runs for the same lead at once book one meeting: the second waits, then finds it (already booked)', async () => {
    // The first booking to reach the sandbox is held there: without the lead lock the other run
    // (its own workflow run and reservation) would book a second meeting meanwhile.
    await t.sb.fault({ method: 'POST', path: '/v1/scheduling/meetings', fault: 'delay', delayMs: 1500, count: 1 });
    const runs = await Promise.all([
      cli([...DEMO, '--slot', 'first', '--yes', '--json']),
      cli([...DEMO, '--slot', 'first', '--yes', '--json']),
    ]);
    expect(
      runs.map((r) => r.code),
      runs.map(show).join('\n'),
    ).toEqual([0, 0]);
    expect(runs.map((r) => r.json().status).sort()).toEqual(['already_booked', 'booked']);
    expect((await t.sb.state()).meetings).toHaveLength(1);
  });

  it('a re-run answered from the record prints the same booking result: nulls for what it never learnt, never "" or half an outcome', async () => {
    const first = await cli([...DEMO, '--slot', 'first', '--yes', '--json']);
    expect(first.code, show(first)).toBe(0);
    const booked = first.json();
    expect(booked).toMatchObject({ status: 'booked', alreadyBookedCode: null, unansweredFires: [] });
    expect(booked.outcome).toMatchObject({ type: 'scheduler', schedulingLinkId: booked.event });
    expect(booked.meetingId).toBe(booked.meeting.id);
    const again = await cli([...DEMO, '--slot', 'first', '--yes', '--json']);
    expect(again.code, show(again)).toBe(0);
    const doc = again.json();
    expect(doc).toMatchObject({
      status: 'already_booked',
      alreadyBookedCode: 'ON_RECORD',
      meetingId: booked.meeting.id,
      startTime: booked.meeting.date,
      email: booked.email,
    });
    // The API's Meeting, field for field: no record-only fields (source, history, …) in it.
    expect(Object.keys(doc.meeting).sort()).toEqual(Object.keys(booked.meeting).sort());
    // Nothing fired: no workflow run or outcome of this run to show (was "" and {"type":"scheduler"}).
    expect(doc.outcome).toBeNull();
    expect(JSON.stringify(doc)).not.toMatch(/:""/);
  });

  it('books the first free time in exactly 4 requests and prints one JSON document', async () => {
    const r = await cli([...DEMO, '--slot', 'first', '--yes', '--json']);
    expect(r.code, show(r)).toBe(0);
    const doc = r.json();
    expect(doc).toMatchObject({ status: 'booked', requests: 4, reused: false, refires: 0, email: 'ada@acme.example' });
    expect(strictSchemas.meeting.safeParse(doc.meeting).success).toBe(true);
    expect(doc.outcome).toMatchObject({ type: 'scheduler', schedulingLinkId: doc.schedulingLinkId });
    expect(doc.startTime).toBe(doc.meeting.date);
    expect(await requests()).toEqual([
      'GET /v1/triggers 200',
      'POST /v1/triggers/:id 200',
      'POST /v1/scheduling/events/:id/slots 200',
      'POST /v1/scheduling/meetings 201',
    ]);
    const state = await t.sb.state();
    expect(state.meetings).toHaveLength(1);
    expect(state.meetings[0]).toMatchObject({
      id: doc.meeting.id,
      workflowExecutionId: doc.executionId,
      personEmail: 'ada@acme.example',
    });
    // Used up: the booked run's remembered outcome is forgotten.
    expect(ledgerRows(t.dir, 'outcomes')).toEqual([]);
    assertNoSecretsInFiles(t.dir);
  });

  it('human mode: the meeting, the reschedule command and the equivalent one-line command on stdout; where on stderr', async () => {
    const r = await cli([...DEMO, '--field', "notes=it's urgent", '--slot', 'first', '--tz', 'UTC']);
    expect(r.code, show(r)).toBe(0);
    const id = (await t.sb.state()).meetings[0]!.id;
    expect(r.stdout).toContain(`Booked meeting ${id}`);
    expect(r.stdout).toContain(`schedctl reschedule ${id} --start <time>`);
    expect(r.stdout).toMatch(
      /As one command: {2}schedctl route --trigger 'Inbound demo request' --email ada@acme\.example --field company=Acme --field region=emea --field 'notes=it'\\''s urgent' --slot \S+Z --yes/,
    );
    expect(r.stderr).toContain(`with SCHEDCTL_API_KEY at ${t.sb.baseUrl}`);
  });

  it('the printed one-line command runs as given and books the same time', async () => {
    const first = await cli([...DEMO, '--field', "notes=it's urgent", '--slot', 'first']);
    const line = /As one command: {2}(.*)/.exec(first.stdout)![1]!;
    expect(line).not.toContain(t.sb.keys.full);
    const booked = (await t.sb.state()).meetings[0]!.date;
    await t.sb.reset();
    t.dir = tempDir();
    const r = await cli([...shellWords(line).slice(1), '--json']);
    expect(r.code, show(r)).toBe(0);
    expect(r.json()).toMatchObject({ status: 'booked', requests: 4, startTime: booked });
  });

  it('a local --slot time in --tz books exactly that time', async () => {
    const wanted = (await t.sb.slots('sales-emea', 7)).slots[2]!;
    await t.sb.reset();
    const local = new Date(wanted).toLocaleString('sv-SE', { timeZone: 'Asia/Tokyo' }).slice(0, 16);
    const r = await cli([...DEMO, '--slot', local, '--tz', 'Asia/Tokyo', '--json']);
    expect(r.code, show(r)).toBe(0);
    expect(r.json().meeting.date).toBe(wanted);
  });

  it('redirect: prints the URL, exit 0, 2 requests', async () => {
    const partner = [
      'route',
      '--trigger',
      'Partner application',
      '--email',
      'p@partner.example',
      '--field',
      'company=P',
      '--field',
      'partner_type=referral',
      '--slot',
      'first',
    ];
    const r = await cli([...partner, '--json']);
    expect(r.code, show(r)).toBe(0);
    expect(r.json()).toMatchObject({
      status: 'redirect',
      meeting: null,
      requests: 2,
      outcome: { type: 'redirect', url: 'https://partners.example.com/apply?type=referral' },
    });
    const human = await cli(partner);
    expect(human.stdout).toContain('https://partners.example.com/apply?type=referral');
  });

  it('without --slot and without a terminal: a redirect or none books nothing, so --slot is not demanded', async () => {
    const none = await cli(['route', '--trigger', 'Newsletter signup', '--email', 'n@example.com']);
    expect(none.code, show(none)).toBe(0);
    expect(none.stdout).toContain('without offering a meeting');
    const partner = ['route', '--trigger', 'Partner application', '--email', 'p@partner.example'];
    const redirect = await cli([...partner, '--field', 'company=P', '--field', 'partner_type=referral']);
    expect(redirect.code, show(redirect)).toBe(0);
    // A scheduler outcome needs a time: exit 2 naming --slot, the run kept; the retry reuses it.
    const missing = await cli(DEMO);
    expect(missing.code, show(missing)).toBe(2);
    expect(missing.stderr).toContain('missing --slot');
    expect(missing.stderr).toContain('the workflow run is kept');
    const fires = async () =>
      (await t.sb.state()).requests.filter((q) => q.method === 'POST' && q.path.startsWith('/v1/triggers/')).length;
    const before = await fires();
    const retry = await cli([...DEMO, '--slot', 'first', '--json']);
    expect(retry.code, show(retry)).toBe(0);
    expect(retry.json()).toMatchObject({ status: 'booked', reused: true });
    expect(await fires()).toBe(before);
  });

  it('none: says the workflow offered no meeting, exit 0', async () => {
    const r = await cli(['route', '--trigger', 'Newsletter signup', '--email', 'n@example.com', '--slot', 'first']);
    expect(r.code, show(r)).toBe(0);
    expect(r.stdout).toContain('without offering a meeting');
    const j = await cli([
      'route',
      '--trigger',
      'Newsletter signup',
      '--email',
      'n@example.com',
      '--slot',
      'first',
      '--json',
    ]);
    expect(j.json()).toMatchObject({ status: 'none', meeting: null, requests: 2 });
  });

  it('missing values without a TTY fail at once naming the flag (exit 2), before any request', async () => {
    for (const [args, flag] of [
      [['route', '--email', 'a@acme.example', '--slot', 'first'], '--trigger'],
      [['route', '--trigger', 'Inbound demo request', '--slot', 'first'], '--email'],
      [[...DEMO, '--slot', 'first', '--guest', 'nope'], '--guest'],
      [[...DEMO, '--slot', 'soonish'], '--slot'],
      [[...DEMO, '--slot', 'first', '--days', '64'], '--days'],
    ] as const) {
      const r = await cli([...args, '--json']);
      expect(r.code, show(r)).toBe(2);
      expect(r.json().error.message).toContain(flag);
    }
    expect(await t.sb.requestCount()).toBe(0);
  });

  it('a missing required field fails naming --field after the one list request, before firing', async () => {
    const r = await cli([
      'route',
      '--trigger',
      'Inbound demo request',
      '--email',
      'a@acme.example',
      '--field',
      'company=Acme',
      '--slot',
      'first',
      '--json',
    ]);
    expect(r.code, show(r)).toBe(2);
    expect(r.json().error.details).toContainEqual(expect.stringContaining('--field region='));
    expect(await requests()).toEqual(['GET /v1/triggers 200']);
  });

  it('the "as one command" line reproduces a run that reused a remembered outcome, --field flags included', async () => {
    const fired = await cli([...demoFireArgs(), '--json']);
    expect(fired.code, show(fired)).toBe(0);
    const r = await cli([...DEMO, '--slot', 'first']);
    expect(r.code, show(r)).toBe(0);
    expect(r.stderr).toContain('Reusing the scheduler outcome');
    expect(r.stdout).toMatch(
      /As one command: {2}schedctl route --trigger 'Inbound demo request' --email ada@acme\.example --field company=Acme --field region=emea --slot \S+Z --yes/,
    );
  });

  it('reuses a remembered scheduler outcome by default (3 requests), --refire fires anew', async () => {
    const fire = [...demoFireArgs(), '--json'];
    const fired = await cli(fire);
    expect(fired.code, show(fired)).toBe(0);
    const r = await cli([...DEMO, '--slot', 'first', '--json']);
    expect(r.code, show(r)).toBe(0);
    expect(r.json()).toMatchObject({
      status: 'booked',
      reused: true,
      requests: 3,
      executionId: fired.json().executionId,
    });
    expect((await t.sb.state()).executions).toHaveLength(1);

    await cli([...fire, '--force']);
    const anew = await cli([...DEMO, '--slot', 'first', '--json', '--refire', '--rebook']);
    expect(anew.code, show(anew)).toBe(0);
    expect(anew.json()).toMatchObject({ status: 'booked', reused: false, requests: 4 });
    expect((await t.sb.state()).executions).toHaveLength(3);
  });

  it('CONFLICT: a reused outcome whose session ended is fired again once with --yes, and books', async () => {
    const fired = await cli([...demoFireArgs(), '--json']);
    const executionId = fired.json().executionId;
    await fetch(`${t.sb.baseUrl}/_sandbox/executions/${executionId}/end`, { method: 'POST' });

    const refused = await cli([...DEMO, '--slot', 'first', '--json']);
    expect(refused.code, show(refused)).toBe(5);
    expect(refused.json().error).toMatchObject({ code: 'CONFLICT', hint: expect.stringContaining('--yes') });

    const r = await cli([...DEMO, '--slot', 'first', '--yes', '--json']);
    expect(r.code, show(r)).toBe(0);
    expect(r.stderr).toContain('--yes: firing the trigger again once');
    const doc = r.json();
    expect(doc).toMatchObject({ status: 'booked', reused: true, refires: 1 });
    expect(doc.executionId).not.toBe(executionId);
    const state = await t.sb.state();
    expect(state.executions).toHaveLength(2);
    expect(state.meetings).toHaveLength(1);
    expect(state.meetings[0]!.workflowExecutionId).toBe(doc.executionId);
    // list, slots, book (CONFLICT), fire, slots, book
    expect((await requests()).slice(-6).map((q) => `${q.split(' ')[0]} ${q.split(' ')[2]}`)).toEqual([
      'GET 200',
      'POST 200',
      'POST 409',
      'POST 200',
      'POST 200',
      'POST 201',
    ]);
  });

  it('SLOT_TAKEN on book: refreshes the times with the same reservation and books the next one', async () => {
    await t.sb.fault({
      method: 'POST',
      path: '/v1/scheduling/meetings',
      fault: 'status',
      status: 409,
      code: 'SLOT_TAKEN',
    });
    const r = await cli([...DEMO, '--slot', 'first', '--json']);
    expect(r.code, show(r)).toBe(0);
    expect(r.json()).toMatchObject({ status: 'booked', requests: 6 });
    expect(r.stderr).toContain('was just taken');
    const state = await t.sb.state();
    expect(state.reservations).toHaveLength(1);
    expect(state.meetings).toHaveLength(1);
  });

  it('drop-after-commit on book: exactly one meeting, exit 7, journaled; running again reports already booked', async () => {
    await t.sb.fault({ method: 'POST', path: '/v1/scheduling/meetings', fault: 'drop-after-commit' });
    const r = await cli([...DEMO, '--slot', 'first', '--yes', '--json']);
    expect(r.code, show(r)).toBe(7);
    expect(r.json().error.code).toBe('OUTCOME_UNKNOWN');
    let state = await t.sb.state();
    expect(state.meetings).toHaveLength(1);
    expect(state.requests.filter((q) => q.path === '/v1/scheduling/meetings')).toHaveLength(1);
    const journal = ledgerRows<Record<string, unknown>>(t.dir, 'attempts');
    expect(journal).toEqual([
      expect.objectContaining({ outcome: 'unknown', workflowExecutionId: state.meetings[0]!.workflowExecutionId }),
    ]);

    const again = await cli([...DEMO, '--slot', 'first', '--yes', '--json']);
    expect(again.code, show(again)).toBe(0);
    expect(again.json()).toMatchObject({ status: 'already_booked', meeting: null, reused: true });
    state = await t.sb.state();
    expect(state.meetings).toHaveLength(1);
    expect(state.executions).toHaveLength(1);
    const posts = () => state.requests.filter((q) => q.method === 'POST').length;
    const postsBefore = posts();

    // Resolved as booked now: the identical re-run is answered from the ledger, no booking (nor fire) sent.
    const third = await cli([...DEMO, '--slot', 'first', '--yes', '--json']);
    expect(third.code, show(third)).toBe(0);
    expect(third.json()).toMatchObject({ status: 'already_booked', alreadyBookedCode: 'ON_RECORD' });
    state = await t.sb.state();
    expect(posts()).toBe(postsBefore);
    expect(state.meetings).toHaveLength(1);
  });
});

/** The words a real shell makes of the printed line (so the quoting is tested, not re-implemented). */
function shellWords(line: string): string[] {
  const out = spawnSync('bash', ['-c', `printf '%s\\0' ${line}`], { encoding: 'utf8' });
  return out.stdout.split('\0').slice(0, -1);
}
