/**
 * Bulk work end to end (issue 17): `schedctl route --from` and `schedctl reschedule --from`,
 * the built CLI against a stateful test sandbox. Everything is checked at the sandbox too: what
 * was sent (its request log) and what exists (its meetings), never only what the CLI says.
 * The shared rate budget is off here (SCHEDCTL_RATE=0 from baseEnv) unless a test says otherwise;
 * test/e2e/rate-budget.test.ts covers the budget itself.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { show, type RunOptions, type RunResult } from '../helpers/cli.js';
import {
  ageRunLocks,
  DEMO_TRIGGER,
  leadRows,
  meetingsPerLead,
  parseBulk,
  rowsDone,
  runLogRecords,
  sent,
  sleep,
  spawnCli,
  waitFor,
  writeCsv,
} from '../helpers/bulk-run.js';
import { demoRouteFirstArgs } from '../helpers/args.js';
import { runRecordRows } from '../helpers/ledger-db.js';
import { useSandbox } from '../helpers/sandbox.js';

const t = useSandbox();

const cli = (args: string[], opts: RunOptions = {}): Promise<RunResult> =>
  t.sb.cli(args, { configDir: t.dir, ...opts });
const route = (file: string, extra: string[] = [], opts: RunOptions = {}) =>
  cli(['route', '--from', file, '--trigger', DEMO_TRIGGER, ...extra], opts);
const LEAD_HEADER = 'email,company,region';

describe('route --from: every row is checked before anything is sent', () => {
  it('refuses a file with invalid rows (exit 2), naming each line, after only the triggers request', async () => {
    const file = writeCsv(t.dir, 'leads.csv', 'email,company,region,team_size,slot', [
      'ok@acme.example,Acme,emea,1-10,first', // line 2
      'not-an-email,Acme,emea,,first', // line 3: bad email
      'b@acme.example,Acme,mars,,first', // line 4: not an option of the select
      'c@acme.example,Acme,emea,,2020-01-01 10:00', // line 5: in the past
      'd@acme.example,Acme,emea,,half past never', // line 6: not a time
      'e@acme.example,Acme,emea,huge,first', // line 7: bad option of an optional select
    ]);
    const r = await route(file);
    expect(r.code, show(r)).toBe(2);
    expect(r.stderr).toMatch(/5 of 6 rows of .*leads\.csv are invalid: nothing was sent/);
    expect(r.stderr).toMatch(/line 3: email: "not-an-email" is not a valid email address/);
    expect(r.stderr).toMatch(/line 4: region: "mars" is not an option/);
    expect(r.stderr).toMatch(/line 5: slot: .* is in the past/);
    expect(r.stderr).toMatch(/line 6: slot: .*"half past never"/);
    expect(r.stderr).toMatch(/line 7: team_size: "huge" is not an option/);
    expect(r.stderr).toContain('--skip-invalid');
    expect(sent(await t.sb.state())).toEqual(['GET /v1/triggers 200']);

    // The same as a JSON error document.
    const j = await route(file, ['--json']);
    expect(j.code, show(j)).toBe(2);
    const doc = j.json<{ error: { code: string; details: string[] } }>();
    expect(doc.error.code).toBe('USAGE');
    expect(doc.error.details.map((d) => d.match(/^line (\d+):/)?.[1])).toEqual(['3', '4', '5', '6', '7']);
  });

  it('refuses an unknown column (exit 2) naming it, with a suggestion, before any row is sent', async () => {
    const file = writeCsv(t.dir, 'typo.csv', 'email,company,regoin', ['x@acme.example,Acme,emea']);
    const r = await route(file);
    expect(r.code, show(r)).toBe(2);
    expect(r.stderr).toMatch(/unknown column "regoin"/);
    expect(r.stderr).toContain('did you mean "region"?');
    expect(sent(await t.sb.state())).toEqual(['GET /v1/triggers 200']);
  });

  it('--dry-run prints the plan and sends nothing but the triggers request', async () => {
    const file = writeCsv(t.dir, 'leads.csv', 'email,company,region,slot', [
      ...leadRows('plan', 4).map((r) => `${r},first`),
      'bad-email,Acme,emea,first', // line 6
      'z@acme.example,Acme,emea,yesterday 9:00', // line 7
    ]);
    const r = await route(file, ['--dry-run']);
    // Exit 2 as the real run would (invalid rows, no --skip-invalid), with the plan printed.
    expect(r.code, show(r)).toBe(2);
    expect(r.stderr).toMatch(/^error: 2 of 6 rows of .*leads\.csv are invalid: nothing was sent$/m);
    // 4 valid rows: 1 + 3 × 4 = 13 requests; the budget is off here.
    expect(r.stdout).toMatch(/leads\.csv: 6 rows \(2 invalid\), 13 requests \(the shared rate budget is off\)/);
    expect(r.stdout).toMatch(/^ {2}line 6: email: "bad-email" is not a valid email address$/m);
    expect(r.stdout).toMatch(/^ {2}line 7: slot: /m);
    expect(sent(await t.sb.state())).toEqual(['GET /v1/triggers 200']);
    expect(runLogRecords(t.dir)).toEqual([]);
    // With --skip-invalid the real run would go on: so does the dry run (exit 0).
    const skipping = await route(file, ['--dry-run', '--skip-invalid']);
    expect(skipping.code, show(skipping)).toBe(0);
    expect(skipping.stdout).toMatch(/6 rows \(2 invalid\)/);
  });

  it('--dry-run --json: rows, valid, invalid, requests = 1 + 3 per valid row, and the least time at the default 30/min', async () => {
    const file = writeCsv(t.dir, 'forty.csv', LEAD_HEADER, [...leadRows('f', 40), 'nope,Acme,emea']);
    // SCHEDCTL_RATE unset: the default budget of 30 requests per minute.
    const r = await route(file, ['--dry-run', '--json'], { env: { SCHEDCTL_RATE: undefined } });
    // Exit 2 as the real run would: one document, the error with the plan in it.
    expect(r.code, show(r)).toBe(2);
    expect(r.json().error).toMatchObject({ code: 'USAGE', message: expect.stringMatching(/^1 of 41 rows/) });
    const doc = r.json<{
      plan: Record<string, number>;
      ratePerMinute: number;
      invalid: Array<{ line: number; errors: string[] }>;
    }>();
    // 121 requests: the first 30 go at once, then one window of 30 a minute: 4 minutes.
    expect(doc.plan).toEqual({ rows: 41, valid: 40, invalid: 1, requests: 121, minDurationSeconds: 240 });
    expect(doc.ratePerMinute).toBe(30);
    expect(doc.invalid).toEqual([{ line: 42, errors: ['email: "nope" is not a valid email address'] }]);
    expect(sent(await t.sb.state())).toEqual(['GET /v1/triggers 200']);

    const text = await route(file, ['--dry-run'], { env: { SCHEDCTL_RATE: undefined } });
    expect(text.stdout).toMatch(/41 rows \(1 invalid\), 121 requests, at least 4 min at 30 requests\/min/);
  });
});

describe('route --from: sending', () => {
  it('--skip-invalid sends the valid rows; exit 8 with the summary naming the invalid lines', async () => {
    const file = writeCsv(t.dir, 'leads.csv', LEAD_HEADER, [
      'ok1@acme.example,Acme,emea', // 2
      'broken,Acme,emea', // 3
      'ok2@acme.example,Acme,apac', // 4
      'x@acme.example,Acme,moon', // 5
    ]);
    const r = await route(file, ['--skip-invalid', '--json']);
    expect(r.code, show(r)).toBe(8);
    const out = parseBulk(r);
    expect(out.rows.map((x) => [x.row, x.status])).toEqual([
      [2, 'booked'],
      [3, 'invalid'],
      [4, 'booked'],
      [5, 'invalid'],
    ]);
    expect(out.rows[1]?.message).toMatch(/email: "broken" is not a valid email address/);
    expect(out.summary).toEqual({ rows: 4, byStatus: { booked: 2, invalid: 2 }, failedRows: [3, 5] });
    expect(out.error?.code).toBe('ROWS_FAILED');
    expect(out.error?.message).toBe('2 of 4 rows failed (lines 3, 5)');
    const state = await t.sb.state();
    expect(Object.fromEntries(meetingsPerLead(state))).toEqual({ 'ok1@acme.example': 1, 'ok2@acme.example': 1 });
    // 1 + 3 per valid row: the invalid rows cost nothing.
    expect(state.requests).toHaveLength(7);
  });

  it('a row the API refuses fails on its own: exit 8 naming its line, --out has every row, a re-run sends only that row', async () => {
    const file = writeCsv(t.dir, 'leads.csv', LEAD_HEADER, leadRows('out', 3));
    await t.sb.fault({
      method: 'POST',
      path: '/v1/triggers/*',
      fault: 'status',
      status: 400,
      code: 'INVALID_REQUEST',
      count: 1,
    });
    const results = join(t.dir, 'results.csv');
    const r = await route(file, ['--out', results]);
    expect(r.code, show(r)).toBe(8);
    expect(r.stderr).toMatch(/warning: line 2 \(out1@acme\.example\): INVALID_REQUEST/);
    expect(r.stderr).toMatch(/1 of 3 rows failed \(line 2\)/);
    expect(r.stdout).toMatch(/3 rows: 1 failed, 2 booked \(results in .*results\.csv\)/);

    const state = await t.sb.state();
    const idOf = (email: string) => state.meetings.find((m) => m.personEmail === email)?.id;
    expect(readFileSync(results, 'utf8')).toBe(
      [
        'row,key,status,meeting_id,code,message',
        '2,out1@acme.example,failed,,INVALID_REQUEST,Injected fault: INVALID_REQUEST.',
        `3,out2@acme.example,booked,${idOf('out2@acme.example')},,`,
        `4,out3@acme.example,booked,${idOf('out3@acme.example')},,`,
        '',
      ].join('\r\n'),
    );

    // Fixed (the fault is spent): the re-run books line 2 and skips the others.
    const before = state.requests.length;
    const again = await route(file, ['--json']);
    expect(again.code, show(again)).toBe(0);
    expect(parseBulk(again).rows.map((x) => [x.row, x.status])).toEqual([
      [2, 'booked'],
      [3, 'skipped'],
      [4, 'skipped'],
    ]);
    const after = await t.sb.state();
    expect(sent(after).slice(before)).toEqual([
      'GET /v1/triggers 200',
      'POST /v1/triggers/:id 200',
      'POST /v1/scheduling/events/:id/slots 200',
      'POST /v1/scheduling/meetings 201',
    ]);
    expect([...meetingsPerLead(after).values()]).toEqual([1, 1, 1]);
  });

  it('reads JSON Lines (lists as guests) from a file and from stdin (-)', async () => {
    const jsonl = join(t.dir, 'leads.jsonl');
    writeFileSync(
      jsonl,
      [
        JSON.stringify({
          email: 'j1@acme.example',
          company: 'Acme',
          region: 'emea',
          team_size: '1-10',
          guests: ['g1@acme.example', 'g2@acme.example'],
        }),
        '',
        JSON.stringify({ email: 'j2@acme.example', company: 'Acme', region: 'apac', trigger: DEMO_TRIGGER }),
      ].join('\n'),
    );
    const r = await route(jsonl, ['--json']);
    expect(r.code, show(r)).toBe(0);
    // JSON Lines have no header: a row is known by its physical line (the blank line 2 is skipped).
    expect(parseBulk(r).rows.map((x) => [x.row, x.key, x.status])).toEqual([
      [1, 'j1@acme.example', 'booked'],
      [3, 'j2@acme.example', 'booked'],
    ]);

    const stdin = [
      JSON.stringify({ email: 's1@acme.example', company: 'Acme', region: 'americas' }),
      // A number is its text: the company "42".
      JSON.stringify({ email: 's2@acme.example', company: 42, region: 'emea', team_size: '51+' }),
    ].join('\n');
    const s = await route('-', ['--json'], { input: `${stdin}\n` });
    expect(s.code, show(s)).toBe(0);
    expect(parseBulk(s).rows.map((x) => [x.row, x.key, x.status])).toEqual([
      [1, 's1@acme.example', 'booked'],
      [2, 's2@acme.example', 'booked'],
    ]);
    const state = await t.sb.state();
    expect(Object.fromEntries(meetingsPerLead(state))).toEqual({
      'j1@acme.example': 1,
      'j2@acme.example': 1,
      's1@acme.example': 1,
      's2@acme.example': 1,
    });
    expect(state.executions.find((e) => e.email === 's2@acme.example')).toBeTruthy();
  });

  it('reads a CSV from stdin and resumes it by content: the same input again skips every row', async () => {
    const csv = `${[LEAD_HEADER, ...leadRows('in', 2)].join('\n')}\n`;
    const r = await route('-', ['--json'], { input: csv });
    expect(r.code, show(r)).toBe(0);
    expect(parseBulk(r).rows.map((x) => x.status)).toEqual(['booked', 'booked']);
    const again = await route('-', ['--json'], { input: csv });
    expect(again.code, show(again)).toBe(0);
    expect(parseBulk(again).rows.map((x) => x.status)).toEqual(['skipped', 'skipped']);
    expect([...meetingsPerLead(await t.sb.state()).values()]).toEqual([1, 1]);
  });

  it("reads times as people say them in a slot cell, in the row's tz", async () => {
    const london = DateTime.now().setZone('Europe/London');
    const tomorrow = london.plus({ days: 1 });
    // The EMEA link's host works Monday to Friday: "tomorrow" when that is a weekday, else "monday".
    const weekday = tomorrow.weekday <= 5;
    const said = weekday ? 'tomorrow 15:00' : 'monday 15:00';
    const day = weekday ? tomorrow : london.plus({ days: 8 - london.weekday });
    const expected = day.set({ hour: 15, minute: 0, second: 0, millisecond: 0 }).toMillis();
    const file = writeCsv(t.dir, 'said.csv', 'email,company,region,slot,tz', [
      `said@acme.example,Acme,emea,${said},Europe/London`,
    ]);
    // The run's own zone is UTC (TZ=UTC, no --tz): the row's tz column decides.
    const r = await route(file, ['--json']);
    expect(r.code, show(r)).toBe(0);
    expect(parseBulk(r).rows[0]?.status).toBe('booked');
    const [meeting] = (await t.sb.state()).meetings;
    expect(Date.parse(meeting?.date ?? ''), `${said} in Europe/London`).toBe(expected);
  });

  it('resume: the same file again skips every row (exit 0) and sends nothing but the triggers request', async () => {
    const file = writeCsv(t.dir, 'leads.csv', LEAD_HEADER, leadRows('again', 4));
    const first = await route(file, ['--json']);
    expect(first.code, show(first)).toBe(0);
    const booked = parseBulk(first).rows;
    expect(booked.map((x) => x.status)).toEqual(['booked', 'booked', 'booked', 'booked']);
    const before = (await t.sb.state()).requests.length;

    const again = await route(file, ['--json']);
    expect(again.code, show(again)).toBe(0);
    const out = parseBulk(again);
    expect(out.rows.map((x) => [x.row, x.status, x.meetingId])).toEqual(
      booked.map((x) => [x.row, 'skipped', x.meetingId]),
    );
    expect(out.summary).toEqual({ rows: 4, byStatus: { skipped: 4 }, failedRows: [] });
    expect(sent(await t.sb.state()).slice(before)).toEqual(['GET /v1/triggers 200']);
  });

  it("state status (local files) counts the ledger's records and this machine's run log records", async () => {
    const file = writeCsv(t.dir, 'leads.csv', LEAD_HEADER, leadRows('status', 2));
    const r = await route(file, ['--json']);
    expect(r.code, show(r)).toBe(0);
    const records = runLogRecords(t.dir).length;
    expect(records).toBeGreaterThanOrEqual(2 * 2); // at least the first and the final record of each row

    const status = await cli(['state', 'status', '--json']);
    expect(status.code, show(status)).toBe(0);
    expect(status.json()).toMatchObject({
      backend: 'local',
      location: t.dir,
      schemaVersion: null,
      // Counted like the team state's; none here: the tests' CLI runs turn the budget off (SCHEDCTL_RATE=0).
      counts: { meetings: 2, rateBudgets: 0, runRecords: records },
      locks: [],
      keptOnThisMachine: 0,
    });
    const human = await cli(['state', 'status']);
    expect(human.code, show(human)).toBe(0);
    expect(human.stdout).toContain('Backend:  local SQLite database (this machine only)');
    expect(human.stdout).toMatch(new RegExp(`Records: .*meetings 2.*runRecords ${records}`));
  });

  it('a run log of a schedctl from before (runs/<key>.jsonl) moves into the ledger on the next run: its rows skipped, a torn last line dropped, the file put aside and named once', async () => {
    const file = writeCsv(t.dir, 'leads.csv', LEAD_HEADER, leadRows('before', 3));
    const first = await route(file, ['--json']);
    expect(first.code, show(first)).toBe(0);
    const records = runRecordRows(t.dir);
    const key = records[0]!.key;
    // The same log as the previous version kept it: JSON Lines in runs/, the table without it.
    const lines = records.map(({ key: _key, at_ms: _ms, ...r }) => JSON.stringify(r));
    const db = new DatabaseSync(join(t.dir, 'ledger.db'));
    db.prepare('DELETE FROM schedctl_run_records').run();
    db.close();
    const old = join(t.dir, 'runs', `${key}.jsonl`);
    writeFileSync(old, `${lines.join('\n')}\n{"row":9,"status":"sta`);
    const before = (await t.sb.state()).requests.length;

    const again = await route(file, ['--json']);
    expect(again.code, show(again)).toBe(0);
    expect(parseBulk(again).rows.map((x) => x.status)).toEqual(['skipped', 'skipped', 'skipped']);
    expect(sent(await t.sb.state()).slice(before)).toEqual(['GET /v1/triggers 200']);
    expect(again.stderr).toContain(`ignored an incomplete last record (line ${lines.length + 1})`);
    expect(again.stderr.split(old).length - 1, show(again)).toBe(2); // the torn line's warning, and the move's note
    expect(again.stderr).toContain(`moved into ${join(t.dir, 'ledger.db')} (${lines.length} record(s))`);
    expect(existsSync(old)).toBe(false);
    expect(readFileSync(join(t.dir, 'runs-before-sqlite', `${key}.jsonl`), 'utf8')).toContain(lines[0]);
    expect(runRecordRows(t.dir).slice(0, lines.length)).toEqual(records.map((r) => ({ ...r, at_ms: r.at_ms })));

    const third = await route(file, ['--json']);
    expect(third.code, show(third)).toBe(0);
    expect(third.stderr).not.toContain('moved into');
  });

  it('lost answers within a batch: those rows fail OUTCOME_UNKNOWN (exit 8); a re-run finds them booked, one meeting each', async () => {
    const file = writeCsv(t.dir, 'leads.csv', LEAD_HEADER, leadRows('lost', 4));
    await t.sb.fault({ method: 'POST', path: '/v1/scheduling/meetings', fault: 'drop-after-commit', count: 2 });
    const r = await route(file, ['--json']);
    expect(r.code, show(r)).toBe(8);
    const out = parseBulk(r);
    expect(out.rows.map((x) => [x.row, x.status, x.code])).toEqual([
      [2, 'failed', 'OUTCOME_UNKNOWN'],
      [3, 'failed', 'OUTCOME_UNKNOWN'],
      [4, 'booked', null],
      [5, 'booked', null],
    ]);
    expect(out.summary?.failedRows).toEqual([2, 3]);
    // JSON Lines: every line one complete document, the final ROWS_FAILED error too (issue 54).
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(6);
    for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
    expect(JSON.parse(lines.at(-1)!).error).toMatchObject({ code: 'ROWS_FAILED', hint: expect.any(String) });
    // A booked row carries the API's Meeting; the document's headline only goes to stderr, once.
    expect(out.rows[2]!.meeting).toMatchObject({ id: out.rows[2]!.meetingId, personEmail: out.rows[2]!.key });
    expect(r.stderr.match(/^error: /gm)).toHaveLength(1);
    expect(r.stderr).not.toContain('hint:');
    // The sandbox did book them: the answers were lost on the way back.
    expect([...meetingsPerLead(await t.sb.state()).values()]).toEqual([1, 1, 1, 1]);

    const again = await route(file, ['--json']);
    expect(again.code, show(again)).toBe(0);
    expect(parseBulk(again).rows.map((x) => [x.row, x.status])).toEqual([
      [2, 'already_booked'],
      [3, 'already_booked'],
      [4, 'skipped'],
      [5, 'skipped'],
    ]);
    const state = await t.sb.state();
    expect(Object.fromEntries(meetingsPerLead(state))).toEqual({
      'lost1@acme.example': 1,
      'lost2@acme.example': 1,
      'lost3@acme.example': 1,
      'lost4@acme.example': 1,
    });
    expect(sent(state).filter((s) => s === 'POST /v1/scheduling/meetings 201')).toHaveLength(4);
  });

  it('a second run of the same file while one is working is refused (RUN_IN_PROGRESS, exit 5) and sends no row', async () => {
    const file = writeCsv(t.dir, 'leads.csv', LEAD_HEADER, leadRows('busy', 3));
    // Holds the first run on its first row's fire until the second run was refused (the sandbox
    // lets it go then): the first run is still working when the second starts, however slow the
    // machine (a delay of a fixed 3 s was not).
    await t.sb.fault({ method: 'POST', path: '/v1/triggers/*', fault: 'delay', delayMs: 60_000, count: 1 });
    const first = spawnCli(t.sb, ['route', '--from', file, '--trigger', DEMO_TRIGGER, '--json'], { configDir: t.dir });
    // The run log is opened once its lock is held.
    await waitFor(() => runLogRecords(t.dir).length > 0 || first.exited(), 'the first run to start sending');
    const second = await route(file, ['--json']);
    expect(second.code, show(second)).toBe(5);
    expect(second.json<{ error: { code: string } }>().error.code).toBe('RUN_IN_PROGRESS');
    // The first run's fire may not have reached the sandbox yet: let it go once it is held.
    for (const deadline = Date.now() + 20_000; (await t.sb.releaseDelays()) === 0 && !first.exited();) {
      if (Date.now() > deadline) throw new Error("timed out waiting for the first run's fire to be held");
      await new Promise((done) => setTimeout(done, 20));
    }

    const done = await first.done;
    expect(done.code, done.stderr).toBe(0);
    const state = await t.sb.state();
    expect([...meetingsPerLead(state).values()]).toEqual([1, 1, 1]);
    // Two validations (one triggers request each), one run's rows.
    expect(sent(state).filter((s) => s.startsWith('GET /v1/triggers'))).toHaveLength(2);
    expect(sent(state).filter((s) => s.startsWith('POST /v1/triggers/'))).toHaveLength(3);
  });

  it(
    'resume after SIGKILL at random rows: every lead ends with exactly one meeting, no row books twice',
    {
      timeout: 120_000,
    },
    async () => {
      const N = 9;
      const file = writeCsv(t.dir, 'leads.csv', LEAD_HEADER, leadRows('kill', N));
      const args = ['route', '--from', file, '--trigger', DEMO_TRIGGER, '--json'];
      // A run killed while booking a row leaves that lead's lock: the next run takes it over once it
      // is 2 s old (SCHEDCTL_TEST_LOCK_STALE_MS, a test-only knob), not the real 10 s. One run at a time.
      const env = { SCHEDCTL_TEST_LOCK_STALE_MS: '2000' };
      const story: string[] = [];
      const started = Date.now();
      const at = () => `${((Date.now() - started) / 1000).toFixed(1)} s`;
      for (let kill = 0; kill < 3; kill++) {
        const run = spawnCli(t.sb, args, { configDir: t.dir, env });
        const doneBefore = rowsDone(t.dir);
        if (kill === 1) {
          // After a random delay, wherever the run is then (starting up, mid-request, between rows).
          await sleep(300 + Math.floor(Math.random() * 1500));
          story.push(`kill ${kill}: after a random delay (${doneBefore} rows done before)`);
        } else {
          // After the run log shows some more rows done, plus a few random ms into the next row.
          const target = Math.min(N - 1, doneBefore + 1 + Math.floor(Math.random() * 3));
          await waitFor(() => rowsDone(t.dir) >= target || run.exited(), `${target} rows done`, 60_000);
          await sleep(Math.floor(Math.random() * 120));
          story.push(`kill ${kill}: after ${target} rows done`);
        }
        run.child.kill('SIGKILL');
        const ended = await run.done;
        story.push(`  ended ${ended.signal ?? `exit ${ended.code}`} at ${at()}, ${rowsDone(t.dir)} rows done`);
        // A run killed mid-way leaves its lock, with its pid beside it: the next run sees that process
        // gone and takes the lock over at once (no RUN_IN_PROGRESS). Only a kill before the pid is
        // written (the random delay may land there) needs the lock's staleness: stand in for it then.
        if (kill === 1) ageRunLocks(t.dir);
      }

      const last = await route(file, ['--json'], { env });
      story.push(`last run ended at ${at()}`);
      const how = `${story.join('\n')}\n${show(last)}`;
      expect(last.code, how).toBe(0);
      const out = parseBulk(last);
      expect(out.rows, how).toHaveLength(N);
      for (const row of out.rows) expect(['skipped', 'booked', 'already_booked'], how).toContain(row.status);

      const state = await t.sb.state();
      const per = meetingsPerLead(state);
      for (let i = 1; i <= N; i++) expect(per.get(`kill${i}@acme.example`), `kill${i}: ${how}`).toBe(1);
      expect(state.meetings, how).toHaveLength(N);
      // No row booked twice: one successful booking request per lead, whatever was cut off.
      expect(
        sent(state).filter((s) => s === 'POST /v1/scheduling/meetings 201'),
        how,
      ).toHaveLength(N);
    },
  );
});

describe('route --from: a lead another run is booking', () => {
  it('is put off: the rows after it first, then it, waiting for that run and finding its meeting', async () => {
    const [held, free] = ['held@acme.example', 'free@acme.example'];
    // Another run routes the held lead; its slots answer comes late, so it holds the lead a while.
    await t.sb.fault({
      method: 'POST',
      path: '/v1/scheduling/events/*/slots',
      fault: 'delay',
      delayMs: 2500,
      count: 1,
    });
    const other = spawnCli(t.sb, [...demoRouteFirstArgs(held, 'emea'), '--json'], { configDir: t.dir });
    await waitFor(() => existsSync(join(t.dir, 'leads')) || other.exited(), 'the other run to hold its lead');
    const file = writeCsv(t.dir, 'leads.csv', LEAD_HEADER, [`${held},Acme,emea`, `${free},Acme,emea`]);
    const r = await route(file, ['--json']);
    expect(r.code, show(r)).toBe(0);
    expect((await other.done).code).toBe(0);
    const rows = parseBulk(r).rows;
    expect(rows.map((x) => [x.row, x.key])).toEqual([
      [3, free],
      [2, held],
    ]);
    expect(rows[0]!.status).toBe('booked');
    expect(rows[1]!.status, 'the other run booked it').not.toBe('booked');
    expect(rows[1]!.status).not.toBe('failed');
    expect([...meetingsPerLead(await t.sb.state()).values()]).toEqual([1, 1]);
  });
});

describe('reschedule --from', () => {
  it(
    'moves meetings named by id or by email (from the local record); an unknown or ambiguous email is an invalid row',
    {
      timeout: 60_000,
    },
    async () => {
      // Book through schedctl, so the local record (meetings.json) knows these leads.
      const booked = await route(
        writeCsv(t.dir, 'book.csv', LEAD_HEADER, [
          'r1@acme.example,Acme,emea',
          'r2@acme.example,Acme,emea',
          'dup@acme.example,Acme,emea',
        ]),
        ['--json'],
      );
      expect(booked.code, show(booked)).toBe(0);
      const ids = Object.fromEntries(parseBulk(booked).rows.map((x) => [x.key, x.meetingId ?? '']));
      // A second meeting of dup@ (other answers, --rebook): its email now names two meetings.
      const dup = await cli([
        'route',
        '--trigger',
        DEMO_TRIGGER,
        '--email',
        'dup@acme.example',
        '--field',
        'company=Acme',
        '--field',
        'region=apac',
        '--slot',
        'first',
        '--yes',
        '--rebook',
        '--json',
      ]);
      expect(dup.code, show(dup)).toBe(0);

      // Free times of the EMEA host, far from the booked ones.
      const free = (await t.sb.slots('sales-emea', 14)).slots.slice(-3);
      const [toA, toB, toC] = free as [string, string, string];
      const londonLocal = DateTime.fromISO(toB).setZone('Europe/London').toFormat('yyyy-MM-dd HH:mm');
      const missing = '00000000-0000-4000-8000-000000000000';

      const moves = writeCsv(t.dir, 'moves.csv', 'meeting,email,start,tz', [
        `${ids['r1@acme.example']},,${toA},`, // 2: by id, ISO
        `,r2@acme.example,${londonLocal},Europe/London`, // 3: by email, a local time in the row's zone
        ',nobody@acme.example,2030-01-07 10:00,UTC', // 4: no meeting of that lead on record
        ',dup@acme.example,2030-01-07 10:00,UTC', // 5: two meetings of that lead on record
        `${missing},,${toC},`, // 6: a meeting the API does not know
      ]);
      const refused = await cli(['reschedule', '--from', moves]);
      expect(refused.code, show(refused)).toBe(2);
      expect(refused.stderr).toMatch(/line 4: email: no upcoming meeting of nobody@acme\.example in the local record/);
      expect(refused.stderr).toMatch(/line 5: email: 2 upcoming meetings of dup@acme\.example are on record/);
      expect(sent(await t.sb.state()).filter((s) => s.startsWith('PATCH'))).toEqual([]);

      const plan = await cli(['reschedule', '--from', moves, '--dry-run', '--json']);
      expect(plan.json<{ plan: Record<string, number> }>().plan).toEqual({
        rows: 5,
        valid: 3,
        invalid: 2,
        requests: 3,
        minDurationSeconds: 0,
      });

      const r = await cli(['reschedule', '--from', moves, '--skip-invalid', '--json']);
      expect(r.code, show(r)).toBe(8);
      const out = parseBulk(r);
      expect(out.rows.map((x) => [x.row, x.status, x.code])).toEqual([
        [2, 'moved', null],
        [3, 'moved', null],
        [4, 'invalid', null],
        [5, 'invalid', null],
        [6, 'failed', 'NOT_FOUND'],
      ]);
      expect(out.rows[1]?.meetingId).toBe(ids['r2@acme.example']);
      expect(out.summary?.failedRows).toEqual([4, 5, 6]);
      let state = await t.sb.state();
      const dateOf = (id: string | undefined) => Date.parse(state.meetings.find((m) => m.id === id)?.date ?? '');
      expect(dateOf(ids['r1@acme.example'])).toBe(Date.parse(toA));
      expect(dateOf(ids['r2@acme.example'])).toBe(Date.parse(toB));

      // Again: the moved rows are skipped (not sent), the failed one is tried again.
      const patchesBefore = sent(state).filter((s) => s.startsWith('PATCH')).length;
      const again = await cli(['reschedule', '--from', moves, '--skip-invalid', '--json']);
      expect(again.code, show(again)).toBe(8);
      expect(parseBulk(again).rows.map((x) => x.status)).toEqual([
        'skipped',
        'skipped',
        'invalid',
        'invalid',
        'failed',
      ]);
      state = await t.sb.state();
      expect(sent(state).filter((s) => s.startsWith('PATCH')).length - patchesBefore).toBe(1);

      // JSON Lines on stdin; the email finds the meeting where its last move put it.
      const s = await cli(['reschedule', '--from', '-', '--json'], {
        input: `${JSON.stringify({ email: 'r1@acme.example', start: toC })}\n`,
      });
      expect(s.code, show(s)).toBe(0);
      expect(parseBulk(s).rows).toEqual([
        {
          row: 1,
          key: 'r1@acme.example',
          status: 'moved',
          meetingId: ids['r1@acme.example'],
          meeting: expect.objectContaining({ id: ids['r1@acme.example'], date: toC }),
          code: null,
          message: null,
        },
      ]);
      state = await t.sb.state();
      expect(dateOf(ids['r1@acme.example'])).toBe(Date.parse(toC));
      expect(state.meetings).toHaveLength(4);
    },
  );
});
