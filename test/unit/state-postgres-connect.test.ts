/**
 * How schedctl reaches a team database: libpq's ways of giving the password (the URL,
 * PGPASSWORD, the password file) work as for psql, and no message ever holds the password.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pgModule from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RunRecord } from '../../src/bulk/run-log.js';
import { openDatabase } from '../../src/state/postgres/connect.js';
import { insertRunRecordsOnce } from '../../src/state/postgres/run-log.js';
import { ensureSchema } from '../../src/state/postgres/schema.js';
import { redactStateUrl } from '../../src/config/state-url.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';

const { Client } = pgModule;
const PASSWORD = 'S3cret-Pa55word';
let pg: TestPostgres;
const dir = mkdtempSync(join(tmpdir(), 'pgpass-'));
const saved = { PGPASSWORD: process.env.PGPASSWORD, PGPASSFILE: process.env.PGPASSFILE };

beforeAll(async () => {
  pg = await startPostgres({ password: PASSWORD });
}, 60_000);
afterAll(async () => {
  await pg?.destroy();
  rmSync(dir, { recursive: true, force: true });
});
afterEach(() => {
  for (const [k, v] of Object.entries(saved))
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
});

const bare = () => `postgres://schedctl_pw@${pg.host}:${pg.port}/schedctl`;
async function ask(url: string): Promise<unknown> {
  const db = openDatabase(url);
  try {
    return (await db.query<{ ok: number }>('SELECT 1 AS ok'))[0]?.ok;
  } catch (error) {
    return db.unavailable(error);
  } finally {
    await db.end();
  }
}

describe('the password of a team database', () => {
  it('comes from the URL', async () => {
    expect(await ask(pg.passwordUrl as string)).toBe(1);
  });

  it('comes from PGPASSWORD when the URL has none', async () => {
    process.env.PGPASSWORD = PASSWORD;
    process.env.PGPASSFILE = join(dir, 'none');
    expect(await ask(bare())).toBe(1);
  });

  it('comes from the password file (PGPASSFILE, 0600) when neither has one', async () => {
    delete process.env.PGPASSWORD;
    const file = join(dir, 'pgpass');
    writeFileSync(file, `${pg.host}:${pg.port}:schedctl:schedctl_pw:${PASSWORD}\n`, { mode: 0o600 });
    process.env.PGPASSFILE = file;
    expect(await ask(bare())).toBe(1);
  });

  it('missing: says so in one line, naming where it may come from', async () => {
    delete process.env.PGPASSWORD;
    process.env.PGPASSFILE = join(dir, 'none');
    const error = (await ask(bare())) as Error;
    expect(error).toMatchObject({ code: 'STATE_UNAVAILABLE', exitCode: 9 });
    expect(error.message).toContain('asks for a password and none was given');
  });

  it('wrong: refused, and never printed, nor the right one', async () => {
    const url = (pg.passwordUrl as string).replace(encodeURIComponent(PASSWORD), 'Wr0ng-guess');
    const error = (await ask(url)) as Error & { hint?: string };
    expect(error).toMatchObject({ code: 'STATE_UNAVAILABLE' });
    expect(error.message).toContain('password authentication failed');
    expect(`${error.message} ${error.hint}`).not.toMatch(/Wr0ng-guess|S3cret/);
    expect(error.message).toContain(redactStateUrl(url));
  });
});

describe('a state URL in messages', () => {
  it('never shows a password, in the userinfo or as a parameter', () => {
    expect(redactStateUrl('postgres://bob:hunter2@db.internal:5433/team?sslmode=require')).toBe(
      'postgres://bob@db.internal:5433/team?sslmode=require',
    );
    expect(redactStateUrl('postgres://db.internal/team?password=hunter2&sslmode=require')).toBe(
      'postgres://db.internal/team?sslmode=require',
    );
  });
});

describe('a step: statements in one transaction, written together (Database.step)', () => {
  it("gives each statement's answer, in order", async () => {
    const url = await pg.createDatabase();
    const db = openDatabase(url);
    await db.query('CREATE TABLE t (id int PRIMARY KEY, n int NOT NULL)');
    const answers = await db.step([
      ['INSERT INTO t VALUES ($1, $2) RETURNING n', [1, 5]],
      ['SELECT count(*)::int AS c FROM t', []],
    ]);
    expect(answers.map((a) => a.rows)).toEqual([[{ n: 5 }], [{ c: 1 }]]);
    await db.end();
  });

  it('rolls back a step whose statement fails, gives the error, and the connection goes on', async () => {
    const url = await pg.createDatabase();
    const db = openDatabase(url);
    await db.query('CREATE TABLE t (id int PRIMARY KEY)');
    await expect(
      db.step([
        ['INSERT INTO t VALUES ($1)', [1]],
        ['INSERT INTO t VALUES ($1)', [1]],
      ]),
    ).rejects.toThrow(/duplicate key/);
    // The one connection: not left in an aborted transaction.
    expect(await db.query('SELECT * FROM t')).toEqual([]);
    await db.end();
  });
});

describe('a transaction alone on the connection (Database.transaction)', () => {
  it('keeps a statement asked while it opens out of it: rolled back, the statement still lands', async () => {
    const db = openDatabase(await pg.createDatabase());
    await db.query('CREATE TABLE t (id int PRIMARY KEY)');
    const failing = db.transaction(async (client) => {
      await client.query('SELECT 1');
      throw new Error('the work failed');
    });
    // Asked in the same tick: it waits for the transaction's end, never written into it.
    const inserted = db.query('INSERT INTO t VALUES (1)');
    await expect(failing).rejects.toThrow('the work failed');
    await inserted;
    expect(await db.query('SELECT id FROM t')).toEqual([{ id: 1 }]);
    await db.end();
  });
});

describe('a push of a run log (state push)', () => {
  it("copies it once when another push of it is under way: the check waits for the other's COMMIT", async () => {
    const url = await pg.createDatabase();
    const db = openDatabase(url);
    await ensureSchema(db);
    const key = 'a'.repeat(64);
    const records = [{ line: 2, status: 'started' }] as unknown as RunRecord[];
    // Another push, between its check and its COMMIT: it holds the lock, its row not yet visible.
    const other = new Client({ connectionString: url });
    await other.connect();
    await other.query('BEGIN');
    await other.query(`SELECT pg_advisory_xact_lock(hashtextextended('schedctl push ' || $1, 0))`, [key]);
    await other.query(`INSERT INTO schedctl_run_records (log_key, record) VALUES ($1, '{"line":2}')`, [key]);
    const copied = insertRunRecordsOnce(db, key, records);
    // Until the push waits for that lock (or, were it not to take it, has finished by itself).
    const waiting = async () => {
      for (;;) {
        const r = await other.query(`SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`);
        if (r.rowCount) return;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    await Promise.race([copied, waiting()]);
    await other.query('COMMIT');
    expect(await copied).toBe(false);
    expect(await db.query('SELECT record FROM schedctl_run_records WHERE log_key = $1', [key])).toEqual([
      { record: { line: 2 } },
    ]);
    // With nothing of it there, it is copied.
    expect(await insertRunRecordsOnce(db, 'b'.repeat(64), records)).toBe(true);
    await Promise.all([other.end(), db.end()]);
  });
});
