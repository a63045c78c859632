/**
 * The run logs of bulk files in the team state (issue 24): a `route --from` run stopped on one
 * machine is resumed from another; one run of an input at a time across machines; records the
 * database could not take are kept on the machine and moved in by its next run; `state push`
 * copies local run logs; schema 1 is migrated to 2. Like team-state.test.ts: machines are config
 * dirs sharing one database (a fresh one per test) and one sandbox; the measure is the sandbox's
 * meetings and requests and the database's rows.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEMO_TRIGGER, leadRows, meetingsPerLead, parseBulk, sent } from '../helpers/bulk-run.js';
import { show, type RunResult } from '../helpers/cli.js';
import { runRecordRows } from '../helpers/ledger-db.js';
import { describeRun, sleep, type Killable } from '../helpers/parallel-run.js';
import { usePostgres } from '../helpers/postgres.js';
import { useSandbox } from '../helpers/sandbox.js';
import { scaled } from '../helpers/slowness.js';
import { startTcpProxy } from '../helpers/tcp-proxy.js';
import { dbName, machine, viaPort, type Machine } from '../helpers/team.js';

/** The run records a machine's team spool keeps (their INSERTs in `ledger.jsonl`). */
const keptRunRecords = (spool: string): unknown[] => {
  const file = join(spool, 'ledger.jsonl');
  if (!existsSync(file)) return [];
  const kept = readFileSync(file, 'utf8').split('\n').filter(Boolean);
  return kept.map((line) => JSON.parse(line) as { sql: string }).filter((s) => s.sql.includes('schedctl_run_records'));
};

const fx = usePostgres();
const t = useSandbox({ holdSeconds: 60 });
const SLOW = { timeout: scaled(90_000) };
const LEAD_HEADER = 'email,company,region';
const BOOKED = 'POST /v1/scheduling/meetings 201';

let stateUrl = '';
beforeEach(async () => {
  stateUrl = await fx.pg.createDatabase();
});

/** Runs started in the background: killed after each test, whatever it ended with. */
const running: Killable[] = [];
afterEach(async () => {
  for (const r of running.splice(0)) if (r.kill()) await r.done.catch(() => undefined);
});
const start = (m: Machine, args: string[]): Killable => {
  const r = m.start(args);
  running.push(r);
  return r;
};

const on = (url = stateUrl) => machine(t.sb, url);
const alone = () => machine(t.sb, undefined);
const sql = (query: string) => fx.pg.psql(query, dbName(stateUrl));

/** The same leads file on a machine (its own copy: same content, its own path). */
function leadsOn(m: Machine, prefix: string, n: number): string {
  const path = join(m.dir, 'leads.csv');
  writeFileSync(path, `${[LEAD_HEADER, ...leadRows(prefix, n)].join('\n')}\n`);
  return path;
}
const routeArgs = (file: string) => ['route', '--from', file, '--trigger', DEMO_TRIGGER, '--json'];

/** Rows with a final record in the team database's run logs. */
async function rowsDoneInDb(): Promise<number> {
  return Number(
    await sql(
      `SELECT count(DISTINCT record->>'row') FROM schedctl_run_records WHERE record->>'status' NOT IN ('started', 'sent')`,
    ),
  );
}

async function until(check: () => Promise<boolean>, timeoutMs = 30_000): Promise<boolean> {
  // Before the first command made the schema, a query fails: not yet.
  for (const deadline = Date.now() + scaled(timeoutMs); Date.now() < deadline; await sleep(25))
    if (await check().catch(() => false)) return true;
  return false;
}

describe('a bulk run resumed from another machine', () => {
  it(
    "A stopped part way (Ctrl-C), B runs the same file: A's rows are skipped (its meetings), only the others are booked, one meeting each",
    SLOW,
    async () => {
      const N = 5;
      const a = on();
      const b = on();
      // Every row's fire is held at the sandbox until the test lets it go, one at a time, so A is
      // stopped with its rows 2 and 3 done and row 4's fire in flight however fast the machine is
      // (no answer arrives while the test is not looking).
      await t.sb.fault({ method: 'POST', path: '/v1/triggers/*', fault: 'delay', delayMs: 600_000, count: N });
      const held = async () =>
        (await t.sb.state()).requests.filter(
          (q) => q.method === 'POST' && q.path.startsWith('/v1/triggers/') && q.status === null,
        ).length;
      const run = start(a, routeArgs(leadsOn(a, 'resume', N)));
      for (let fires = 0; fires < 3; fires++) {
        expect(await until(async () => (await held()) === 1), `fire ${fires + 1} reached the sandbox`).toBe(true);
        if (fires === 2) break;
        expect(await t.sb.releaseDelays()).toBe(1);
        expect(await until(async () => (await rowsDoneInDb()) >= fires + 1)).toBe(true);
      }
      run.child.kill('SIGINT');
      // Row 4's fire answers now (the interrupt lets a request in flight finish); no later one is held.
      await t.sb.clearFaults();
      await t.sb.releaseDelays();
      const stopped = await run.done;
      expect(stopped.code, describeRun(stopped)).toBe(130);
      const fromA = parseBulk(stopped as unknown as RunResult).rows.filter((r) => r.row !== undefined);
      expect(fromA.length, describeRun(stopped)).toBeGreaterThanOrEqual(2);
      expect(fromA.length, describeRun(stopped)).toBeLessThan(N);
      for (const row of fromA) expect(row.status).toBe('booked');
      // Nothing of this run log is on machine A (neither in its ledger nor in files): it is the team's.
      expect(runRecordRows(a.dir)).toEqual([]);
      expect(
        existsSync(join(a.dir, 'runs')) ? readdirSync(join(a.dir, 'runs')).filter((f) => f.endsWith('.jsonl')) : [],
      ).toEqual([]);

      const resumed = await b.run(routeArgs(leadsOn(b, 'resume', N)));
      expect(resumed.code, show(resumed)).toBe(0);
      const rows = parseBulk(resumed).rows;
      expect(rows.map((r) => r.row)).toEqual([2, 3, 4, 5, 6]);
      // The row A was working on when it was stopped may have sent its booking (the interrupt
      // lets a request in flight finish): B then resolves that attempt from the ledger
      // (already_booked), never books it twice. Every later row is B's own.
      const inFlight = Math.max(...fromA.map((r) => r.row!)) + 1;
      for (const row of rows) {
        const earlier = fromA.find((r) => r.row === row.row);
        if (earlier) expect(row, show(resumed)).toMatchObject({ status: 'skipped', meetingId: earlier.meetingId });
        else if (row.row === inFlight) expect(['booked', 'already_booked'], show(resumed)).toContain(row.status);
        else expect(row.status, show(resumed)).toBe('booked');
      }
      const state = await t.sb.state();
      expect([...meetingsPerLead(state).values()]).toEqual(Array(N).fill(1));
      expect(sent(state).filter((s) => s === BOOKED)).toHaveLength(N);
    },
  );

  it(
    'while A works through a file, B running the same file is refused (RUN_IN_PROGRESS, exit 5) naming A; A killed, B resumes at once',
    SLOW,
    async () => {
      const a = on();
      const b = on();
      // A's first fire is taken and never answered: A holds the run until it is killed below, however
      // slow the machine (a delay that ends lets A finish and give the lock back before B looks).
      await t.sb.fault({ method: 'POST', path: '/v1/triggers/*', fault: 'stall-after-commit', count: 1 });
      const run = start(a, [...routeArgs(leadsOn(a, 'held', 3)), '--timeout', '600']);
      const pid = String(run.child.pid);
      expect(
        await until(
          async () => (await sql(`SELECT owner->>'pid' FROM schedctl_locks WHERE name LIKE 'run %'`)) === pid,
        ),
      ).toBe(true);

      const refused = await b.run(routeArgs(leadsOn(b, 'held', 3)));
      expect(refused.code, show(refused)).toBe(5);
      const error = refused.json().error;
      expect(error.code).toBe('RUN_IN_PROGRESS');
      expect(error.message).toMatch(new RegExp(`\\S+@\\S+, pid ${pid}, since \\d{4}-`));
      expect(error.message).toContain('nothing was sent');
      const status = await b.run(['state', 'status', '--json']);
      expect(status.code, show(status)).toBe(0);
      // The run's lock (and the lead lock of its row in flight).
      expect(status.json().locks).toEqual(
        expect.arrayContaining([expect.objectContaining({ subject: 'run', pid: run.child.pid })]),
      );

      // A killed: its lock goes with its connection, B goes on without waiting for anything.
      run.kill();
      await run.done;
      const resumed = await b.run(routeArgs(leadsOn(b, 'held', 3)));
      expect(resumed.code, show(resumed)).toBe(0);
      for (const row of parseBulk(resumed).rows) expect(['booked', 'already_booked', 'skipped']).toContain(row.status);
      expect([...meetingsPerLead(await t.sb.state()).values()]).toEqual([1, 1, 1]);
    },
  );
});

describe('the database lost during a bulk run', () => {
  it(
    'a row whose booking was sent has its record kept on the machine; the next row is not sent (exit 9); the next run moves the record in and resumes',
    SLOW,
    async () => {
      const proxy = await startTcpProxy({ port: fx.pg.port });
      try {
        const a = on(viaPort(stateUrl, proxy.port));
        const file = leadsOn(a, 'cut', 3);
        // The first booking's answer comes late: the way to the database is cut while it is in flight.
        await t.sb.fault({ method: 'POST', path: '/v1/scheduling/meetings', fault: 'delay', delayMs: 2000, count: 1 });
        const run = start(a, routeArgs(file));
        expect(
          await until(async () =>
            (await t.sb.state()).requests.some((q) => q.method === 'POST' && q.path === '/v1/scheduling/meetings'),
          ),
        ).toBe(true);
        proxy.cut();
        proxy.block('reset');
        const r = await run.done;
        expect(r.code, describeRun(r)).toBe(9);
        expect(r.stderr, describeRun(r)).toContain('line 3 was not sent');
        const spool = join(a.dir, 'team-spool');
        expect(r.stderr, describeRun(r)).toContain(`its run record is kept on this machine in ${spool}`);
        // Kept in the team spool as its INSERT, with the ledger's statements.
        expect(keptRunRecords(spool)).toHaveLength(1);
        // Only the first lead was booked; nothing of the second row was sent.
        let state = await t.sb.state();
        expect(Object.fromEntries(meetingsPerLead(state))).toEqual({ 'cut1@acme.example': 1 });
        expect(sent(state).filter((s) => s.startsWith('POST /v1/triggers/'))).toHaveLength(1);

        proxy.unblock();
        const again = await a.run(routeArgs(file));
        expect(again.code, show(again)).toBe(0);
        expect(again.stderr).toMatch(/note: moved \d+ run record\(s\) kept on this machine/);
        expect(parseBulk(again).rows.map((x) => [x.row, x.status])).toEqual([
          [2, 'skipped'],
          [3, 'booked'],
          [4, 'booked'],
        ]);
        expect(keptRunRecords(spool)).toEqual([]);
        state = await t.sb.state();
        expect([...meetingsPerLead(state).values()]).toEqual([1, 1, 1]);
        expect(sent(state).filter((s) => s === BOOKED)).toHaveLength(3);
      } finally {
        await proxy.close();
      }
    },
  );
});

describe('run records an earlier schedctl kept apart (team-spool/runs/)', () => {
  it('move into the team state with the next command, and the directory goes', SLOW, async () => {
    const a = on();
    const key = 'a'.repeat(64);
    const record = { row: 2, status: 'booked', key: 'x@acme.example', at: '2026-12-01T10:00:00.000Z' };
    mkdirSync(join(a.dir, 'team-spool', 'runs'), { recursive: true });
    writeFileSync(join(a.dir, 'team-spool', 'runs', `${key}.jsonl`), `${JSON.stringify(record)}\n`);
    const status = await a.run(['state', 'status', '--json']);
    expect(status.code, show(status)).toBe(0);
    expect(status.stderr).toContain('note: moved 1 run record(s) kept on this machine');
    expect(JSON.parse(status.stdout).keptOnThisMachine).toBe(0);
    expect(await sql(`SELECT record->>'status' FROM schedctl_run_records WHERE log_key = '${key}'`)).toBe('booked');
    expect(existsSync(join(a.dir, 'team-spool', 'runs'))).toBe(false);
  });
});

describe('state push and the schema', () => {
  it(
    "copies a machine's local run logs in once (three pushes at once, then a fourth: one copy); another machine then skips those rows",
    SLOW,
    async () => {
      const a = alone();
      const first = await a.run(routeArgs(leadsOn(a, 'pushed', 2)));
      expect(first.code, show(first)).toBe(0);
      const push = () => a.run(['state', 'push', '--json'], { SCHEDCTL_STATE_URL: stateUrl });
      // Three at once (parallel scripts, a retry while the first still runs): one copies the log.
      const racing = await Promise.all([push(), push(), push()]);
      for (const r of racing) expect(r.code, show(r)).toBe(0);
      // started + booked, per row.
      expect(racing.map((r) => r.json().moved.runRecords).sort()).toEqual([0, 0, 4]);
      expect(racing.map((r) => r.json().alreadyThere.runRecords).sort()).toEqual([0, 4, 4]);
      expect(await sql('SELECT count(*) FROM schedctl_run_records')).toBe('4');
      const two = await push();
      expect(two.code, show(two)).toBe(0);
      expect(two.json().moved.runRecords).toBe(0);
      expect(two.json().alreadyThere.runRecords).toBe(4);
      expect(await sql('SELECT count(*) FROM schedctl_run_records')).toBe('4');

      const b = on();
      const again = await b.run(routeArgs(leadsOn(b, 'pushed', 2)));
      expect(again.code, show(again)).toBe(0);
      expect(parseBulk(again).rows.map((x) => x.status)).toEqual(['skipped', 'skipped']);
      expect(sent(await t.sb.state()).filter((s) => s === BOOKED)).toHaveLength(2);
    },
  );

  it(
    'a database at schema version 1 is migrated to 4 by the first command (the run records table, the ledger tables and the workspace keys made)',
    SLOW,
    async () => {
      const a = on();
      const made = await a.run(['state', 'status', '--json']);
      expect(made.code, show(made)).toBe(0);
      expect(made.json().schemaVersion).toBe(4);
      // What a schedctl of schema 1 left: its documents, no run records, no ledger tables.
      await sql(
        `DROP TABLE schedctl_run_records; ${['attempts', 'meetings', 'outcomes', 'fires', 'event_aliases', 'workspace_keys', 'ledger_marks'].map((t) => `DROP TABLE schedctl_${t}`).join('; ')};
         ALTER TABLE schedctl_documents_schema2 RENAME TO schedctl_documents;
         UPDATE schedctl_meta SET value = '1' WHERE key = 'schema_version'`,
      );
      expect(await sql(`SELECT to_regclass('schedctl_run_records') IS NULL`)).toBe('t');

      const status = await on().run(['state', 'status', '--json']);
      expect(status.code, show(status)).toBe(0);
      expect(status.json()).toMatchObject({ schemaVersion: 4, counts: { runRecords: 0 } });
      expect(await sql(`SELECT value FROM schedctl_meta WHERE key = 'schema_version'`)).toBe('4');
      expect(await sql(`SELECT to_regclass('schedctl_workspace_keys') IS NOT NULL`)).toBe('t');
      expect(await sql(`SELECT to_regclass('schedctl_run_records') IS NOT NULL`)).toBe('t');
      const run = await a.run(routeArgs(leadsOn(a, 'migrated', 1)));
      expect(run.code, show(run)).toBe(0);
      expect(await sql('SELECT count(*) FROM schedctl_run_records')).toBe('2');
    },
  );
});
