/**
 * What the team backend keeps on this machine and what the state commands read of it, against a
 * real PostgreSQL: the spool (postgres/ledger-spool.ts) kept in order and applied once, a torn
 * last line forgiven and damage elsewhere said; what a run kept moved in with a note per kind, a
 * failure after a send warned once per kind; `state status`'s counts and holders and `state
 * unlock`'s release (postgres/admin.ts).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { asUnrepeatable, beforeSend, forgetSentForTests } from '../../src/api/send-hook.js';
import { DEFAULT_LOCK_TIMING } from '../../src/state/lock.js';
import { heldLocks, keptHere, releaseLock, teamCounts, teamSchemaVersion } from '../../src/state/postgres/admin.js';
import { postgresBackend, type PostgresBackend } from '../../src/state/postgres/backend.js';
import { LedgerSpool } from '../../src/state/postgres/ledger-spool.js';
import { takeLock } from '../../src/state/postgres/locks.js';
import { SCHEMA_VERSION } from '../../src/state/postgres/schema.js';
import { StateFileError } from '../../src/state/errors.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
// @ts-expect-error: a script's module (JavaScript, no types)
import { startForwarder } from '../../scripts/pg-forwarder.mjs';

let pg: TestPostgres;
const root = mkdtempSync(join(tmpdir(), 'pg-spool-'));
const opened: PostgresBackend[] = [];
beforeAll(async () => {
  pg = await startPostgres();
}, 60_000);
// Workers share modules between files (the mutation run's isolate: false): no file's send leaks in.
beforeEach(() => forgetSentForTests());
afterEach(() => forgetSentForTests());
afterAll(async () => {
  for (const b of opened) await b.close();
  await pg?.destroy();
  rmSync(root, { recursive: true, force: true });
});

let n = 0;
const newDir = () => {
  const dir = join(root, `c${++n}`);
  mkdirSync(dir, { recursive: true });
  return dir;
};
async function open(dir = newDir(), url?: string) {
  const lines: string[] = [];
  const backend = postgresBackend({
    url: url ?? (await pg.createDatabase()),
    dir,
    leadWaitMs: 1000,
    warn: (l) => lines.push(l),
  });
  opened.push(backend);
  return { backend, lines, dir };
}
const PROBE = 'CREATE TABLE IF NOT EXISTS probe (k text PRIMARY KEY, v text)';
const upsert = (k: string, v: string) => ({
  sql: 'INSERT INTO probe (k, v) VALUES (?, ?) ON CONFLICT (k) DO UPDATE SET v = EXCLUDED.v',
  params: [k, v],
});

describe('the team spool', () => {
  it('keeps statements in order (0600), applies them in one step, and forgets only what it applied', async () => {
    const { backend, dir } = await open();
    await backend.db.query(PROBE);
    const spool = new LedgerSpool(join(dir, 'team-spool'), DEFAULT_LOCK_TIMING);
    expect(spool.pending()).toEqual([]);
    expect(await spool.applyTo(backend.db)).toBe(0);
    await spool.keep([upsert('a', '1'), upsert('a', '2')]);
    await spool.keep([upsert('b', 'x')]);
    expect(statSync(spool.path).mode & 0o777).toBe(0o600);
    expect(spool.pending().map((s) => s.params)).toEqual([
      ['a', '1'],
      ['a', '2'],
      ['b', 'x'],
    ]);
    expect(await spool.applyTo(backend.db)).toBe(3);
    // In order: the later write of `a` wins.
    expect(await backend.db.query('SELECT k, v FROM probe ORDER BY k')).toEqual([
      { k: 'a', v: '2' },
      { k: 'b', v: 'x' },
    ]);
    expect(spool.pending()).toEqual([]);
    expect(existsSync(spool.path)).toBe(false);
  });

  it('a failed apply forgets nothing; a torn last line is dropped, a damaged one elsewhere is said', async () => {
    const { backend, dir } = await open();
    await backend.db.query(PROBE);
    const spool = new LedgerSpool(join(dir, 'team-spool'), DEFAULT_LOCK_TIMING);
    await spool.keep([upsert('c', '1'), { sql: 'INSERT INTO no_such_table (k) VALUES (?)', params: ['c'] }]);
    await expect(spool.applyTo(backend.db)).rejects.toThrow(/no_such_table/);
    expect(spool.pending()).toHaveLength(2);
    // Nothing of the failed step landed.
    expect(await backend.db.query('SELECT k FROM probe WHERE k = $1', ['c'])).toEqual([]);

    writeFileSync(spool.path, `${JSON.stringify(upsert('d', '1'))}\n{"sql": "INSERT INTO pro`);
    expect(spool.pending().map((s) => s.params)).toEqual([['d', '1']]);
    writeFileSync(spool.path, `not json\n${JSON.stringify(upsert('d', '1'))}\n`);
    expect(() => spool.pending()).toThrow(StateFileError);
    expect(() => spool.pending()).toThrow(/its record 1 \(a line of its own\) is not JSON/);
  });
});

describe('the team backend and what a run kept', () => {
  it('moves a spool in before anything else, with one note per kind of record', async () => {
    const dir = newDir();
    const spool = new LedgerSpool(join(dir, 'team-spool'), DEFAULT_LOCK_TIMING);
    const mark = 'INSERT INTO schedctl_ledger_marks (mark, at_ms) VALUES (?, ?) ON CONFLICT DO NOTHING';
    await spool.keep([
      { sql: mark, params: ['m1', 1] },
      { sql: mark, params: ['m2', 2] },
      { sql: 'DELETE FROM schedctl_meetings WHERE id = ?', params: ['none'] },
    ]);
    // A database with no schema yet: made first, then what was kept applied.
    const { backend, lines } = await open(dir);
    await backend.ready();
    expect(lines).toEqual([
      expect.stringMatching(
        /^note: moved 2 ledger record\(s\) kept on this machine while the team state was unreachable into /,
      ),
      expect.stringMatching(/^note: moved 1 meetings record\(s\) kept on this machine/),
    ]);
    const marks = await backend.db.query('SELECT mark FROM schedctl_ledger_marks WHERE mark LIKE $1 ORDER BY mark', [
      'm_',
    ]);
    expect(marks).toEqual([{ mark: 'm1' }, { mark: 'm2' }]);
    expect(keptHere(backend)).toBe(0);
  });

  it('moves run records an earlier schedctl kept in team-spool/runs/ in, and the directory goes', async () => {
    const dir = newDir();
    const runs = join(dir, 'team-spool', 'runs');
    mkdirSync(runs, { recursive: true });
    const key = 'ab'.repeat(32);
    const record = { row: 1, status: 'booked', at: '2026-12-01T10:00:00.000Z' };
    writeFileSync(join(runs, `${key}.jsonl`), `${JSON.stringify(record)}\n`);
    const { backend, lines } = await open(dir);
    await backend.ready();
    expect(existsSync(runs)).toBe(false);
    expect(lines).toEqual([expect.stringMatching(/^note: moved 1 run record\(s\) kept on this machine/)]);
    expect(await backend.db.query('SELECT log_key, record FROM schedctl_run_records')).toEqual([
      { log_key: key, record },
    ]);
  });

  it('a step failing after a send is kept and warned once per kind; before a send it fails', async () => {
    const good = await open();
    const sql = await good.backend.sql();
    await sql.all('SELECT 1');
    // The same directory, a database that refuses connections.
    const { backend, lines, dir } = await open(good.dir, `postgres://nobody@127.0.0.1:1/none`);
    const down = await backend.sql();
    const write = (mark: string): [string, [string, number]] => [
      'INSERT INTO schedctl_ledger_marks (mark, at_ms) VALUES (?, ?)',
      [mark, 1],
    ];
    await expect(down.step([write('before')])).rejects.toMatchObject({ code: 'STATE_UNAVAILABLE' });
    expect(lines).toEqual([]);
    await asUnrepeatable(() => beforeSend());
    expect(await down.step([write('after-1')])).toEqual([{ rows: [], changes: 1 }]);
    expect(await down.run(...write('after-2'))).toBe(1);
    // A read has nothing to keep: it fails.
    await expect(down.all('SELECT mark FROM schedctl_ledger_marks')).rejects.toMatchObject({
      code: 'STATE_UNAVAILABLE',
    });
    expect(lines).toEqual([
      expect.stringMatching(
        /^warning: the team state at postgres:\/\/nobody@127\.0\.0\.1:1\/none failed after the request was sent \(connection refused\): its ledger record is kept on this machine in .*team-spool and moves/,
      ),
    ]);
    expect(
      readFileSync(join(dir, 'team-spool', 'ledger.jsonl'), 'utf8')
        .trim()
        .split('\n'),
    ).toHaveLength(2);
    expect(keptHere(backend)).toBe(2);
  });
});

describe('the team backend before its first statement', () => {
  it('says what a TLS alias verifies once, at open, before any connection', async () => {
    const { lines } = await open(newDir(), 'postgres://someone@127.0.0.1:1/x?sslmode=require');
    expect(lines).toEqual([expect.stringMatching(/^note: sslmode=require in the state URL: schedctl encrypts/)]);
    expect((await open(newDir(), 'postgres://someone@127.0.0.1:1/x?sslmode=disable')).lines).toEqual([]);
  });

  it('a database not there yet: assertWritable says which; once it is, the next use connects anew and makes the schema', async () => {
    const url = new URL(await pg.createDatabase());
    const name = `later_${process.pid}`;
    url.pathname = `/${name}`;
    const { backend } = await open(newDir(), url.toString());
    await expect(backend.assertWritable()).rejects.toMatchObject({
      code: 'STATE_UNAVAILABLE',
      message: expect.stringContaining(name),
    });
    await pg.psql(`CREATE DATABASE ${name} OWNER schedctl_test`, 'postgres');
    await backend.assertWritable();
    expect(await teamSchemaVersion(backend)).toBe(SCHEMA_VERSION);
  });
});

describe('a newer schema', () => {
  it('is refused naming the schedctl that wrote it; a writer that is not a version gets the latest', async () => {
    const cases: Array<[writer: string | null, install: string]> = [
      ['schedctl 9.1.0-rc.1', 'schedctl@9.1.0-rc.1'],
      ['schedctl 9.1; rm -rf /', 'schedctl@latest'],
      [null, 'schedctl@latest'],
    ];
    for (const [writer, install] of cases) {
      const url = await pg.createDatabase();
      const setup = await open(newDir(), url);
      expect(await teamSchemaVersion(setup.backend)).toBe(SCHEMA_VERSION);
      const name = new URL(url).pathname.slice(1);
      await pg.psql(
        `UPDATE schedctl_meta SET value = '${SCHEMA_VERSION + 1}' WHERE key = 'schema_version'; ${
          writer === null
            ? "DELETE FROM schedctl_meta WHERE key = 'writer'"
            : `UPDATE schedctl_meta SET value = '${writer}' WHERE key = 'writer'`
        }`,
        name,
      );
      const { backend } = await open(newDir(), url);
      const refused = backend.assertWritable();
      await expect(refused, String(writer)).rejects.toMatchObject({
        code: 'STATE_UNAVAILABLE',
        message: expect.stringContaining(
          `its schedctl schema is version ${SCHEMA_VERSION + 1}, newer than this schedctl's ${SCHEMA_VERSION}`,
        ),
        hint: expect.stringContaining(`(npm install -g ${install})`),
      });
      const hint = String(((await refused.catch((e: unknown) => e)) as { hint?: string }).hint);
      expect(hint.includes(`, schedctl 9.1.0-rc.1, or newer`)).toBe(writer === 'schedctl 9.1.0-rc.1');
    }
  });
});

describe('what state status and state unlock read and do', () => {
  it('counts in one round trip (the ledger, the budgets and the run records asked together)', async () => {
    const target = new URL(await pg.createDatabase());
    const forwarder = await startForwarder({ host: target.hostname, port: Number(target.port) });
    try {
      target.port = String(forwarder.port);
      const { backend } = await open(newDir(), target.toString());
      expect(await teamSchemaVersion(backend)).toBe(SCHEMA_VERSION); // connected, the schema made
      forwarder.state.delayMs = 5;
      const before = forwarder.state.flights;
      expect(await teamCounts(backend)).toMatchObject({ journal: 0, runRecords: 0 });
      expect(forwarder.state.flights - before).toBe(1);
    } finally {
      await forwarder.close();
    }
  });

  it('counts, the schema version, holders by subject, and a release that ends the holding session', async () => {
    const url = await pg.createDatabase();
    const admin = (await open(newDir(), url)).backend;
    const holder = (await open(newDir(), url)).backend;
    expect(await teamSchemaVersion(admin)).toBe(SCHEMA_VERSION);
    expect(await teamCounts(admin)).toEqual({
      journal: 0,
      meetings: 0,
      outcomes: 0,
      fires: 0,
      events: 0,
      rateBudgets: 0,
      runRecords: 0,
    });
    await holder.ready();
    const lead = await takeLock(holder.db, 'lead ws-1 ann@acme.example');
    const run = await takeLock(holder.db, `run ws-1 ${'cd'.repeat(32)}`);
    const meeting = await takeLock(holder.db, 'meeting ws-2 mtg_1');
    expect(lead && run && meeting).toBeTruthy();
    const held = await heldLocks(admin);
    expect(
      held.map(({ subject, of, workspace }) => ({ subject, of, workspace })).sort((a, b) => a.of.localeCompare(b.of)),
    ).toEqual([
      { subject: 'lead', of: 'ann@acme.example', workspace: 'ws-1' },
      { subject: 'run', of: 'cd'.repeat(32), workspace: 'ws-1' },
      { subject: 'meeting', of: 'mtg_1', workspace: 'ws-2' },
    ]);
    for (const h of held) {
      expect(h).not.toHaveProperty('token');
      expect(h).toMatchObject({ pid: process.pid, backendPid: expect.any(Number) });
    }
    const one = held.find((h) => h.subject === 'lead')!;
    expect(await releaseLock(admin, one)).toBe(true);
    // The holding session is gone, and every lock of it; its holder rows say nothing any more.
    expect(await heldLocks(admin)).toEqual([]);
    expect(
      await admin.db.query('SELECT name FROM schedctl_locks WHERE name = $1', ['lead ws-1 ann@acme.example']),
    ).toEqual([]);
    expect(await releaseLock(admin, one)).toBe(false);
    await holder.db.query('SELECT 1').catch(() => {});
    expect(lead!.alive()).toBe(false);
  });
});
