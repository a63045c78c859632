/**
 * How a ledger step runs on the team database (postgres/sql.ts): its statements written together
 * on the command's one connection (pg's pipeline mode), a one-write step without a transaction
 * block. What must hold whatever the round trips: a step's writes land together
 * or not at all, and a value reaches the database exactly as given.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresBackend, type PostgresBackend } from '../../src/state/postgres/backend.js';
import { Fires } from '../../src/state/fires.js';
import { pages } from '../../src/state/sql/pages.js';
import type { Sql } from '../../src/state/sql/types.js';
import { insertPageRows } from '../helpers/page-rows.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { insertLeadRecords, LEADS_WITH_RECORDS } from '../helpers/lead-records.js';

let pg: TestPostgres;
let backend: PostgresBackend;
let sql: Sql;
const dir = mkdtempSync(join(tmpdir(), 'pg-steps-'));

beforeAll(async () => {
  pg = await startPostgres();
  backend = postgresBackend({ url: await pg.createDatabase(), dir, leadWaitMs: 1000 });
  sql = await backend.sql();
  await backend.db.query('CREATE TABLE probe (k text PRIMARY KEY, v text, n bigint)');
}, 60_000);
afterAll(async () => {
  await backend?.close();
  await pg?.destroy();
  rmSync(dir, { recursive: true, force: true });
});

const rows = async (k: string) =>
  backend.db.query<{ v: string | null; n: string | null }>('SELECT v, n FROM probe WHERE k = $1', [k]);

describe('a ledger step on the team database', () => {
  it('lands its statements together or not at all, and answers each: rows and counts', async () => {
    await expect(
      sql.step([
        ['INSERT INTO probe (k, v) VALUES (?, ?)', ['together', 'first']],
        ['INSERT INTO probe (k, v) VALUES (?, ?)', ['together', 'the same key again']],
      ]),
    ).rejects.toThrow(/duplicate key/);
    expect(await rows('together')).toEqual([]);
    expect(
      await sql.step([
        ['INSERT INTO probe (k, v) VALUES (?, ?)', ['both-1', 'a']],
        ['INSERT INTO probe (k, v) VALUES (?, ?) RETURNING v', ['both-2', 'b']],
        ['UPDATE probe SET n = ? WHERE k IN (?, ?)', [3, 'both-1', 'both-2']],
        ['SELECT v FROM probe WHERE k = ?', ['both-1']],
      ]),
    ).toEqual([
      { rows: [], changes: 1 },
      { rows: [{ v: 'b' }], changes: 1 },
      { rows: [], changes: 2 },
      { rows: [{ v: 'a' }], changes: 0 },
    ]);
    // The connection goes on after a failed step (rolled back, not left in a failed block).
    expect(await sql.run('UPDATE probe SET v = ? WHERE k = ?', ['a+', 'both-1'])).toBe(1);
  });

  it('sends every value as given', async () => {
    const values = ["O'Brien", 'back\\slash \\\\ and \\n', 'a ? in it', 'Zoë 東京 🙂', '', "'); DROP TABLE probe; --"];
    for (const [i, v] of values.entries())
      await sql.step([['INSERT INTO probe (k, v, n) VALUES (?, ?, ?)', [`param-${i}`, v, 1795786200000]]]);
    for (const [i, v] of values.entries()) expect(await rows(`param-${i}`)).toEqual([{ v, n: '1795786200000' }]);
    await sql.run('INSERT INTO probe (k, v, n) VALUES (?, ?, ?)', ['nulls', null, null]);
    expect(await rows('nulls')).toEqual([{ v: null, n: null }]);
  });

  it('runs a transaction: reads that decide a write, the write its last step (with the COMMIT), or nothing when it throws', async () => {
    const changed = await sql.transaction(async (tx) => {
      const [held] = await tx.all<{ v: string }>('SELECT v FROM probe WHERE k = ?', ['both-1']);
      return tx.step([['UPDATE probe SET v = ? WHERE k = ?', [`${held!.v}+`, 'both-1']]]);
    });
    expect(changed).toEqual([{ rows: [], changes: 1 }]);
    expect((await rows('both-1'))[0]!.v).toBe('a++');
    await expect(
      sql.transaction(async (tx) => {
        await tx.run('INSERT INTO probe (k, v) VALUES (?, ?)', ['tx-1', 'x']);
        throw new Error('the step gave up');
      }),
    ).rejects.toThrow(/gave up/);
    expect(await rows('tx-1')).toEqual([]);
    await expect(
      sql.transaction(async (tx) => {
        await tx.run('INSERT INTO probe (k, v) VALUES (?, ?)', ['tx-2', 'x']);
        await tx.step([['INSERT INTO probe (k, v) VALUES (?, ?)', ['both-1', 'a key already there']]]);
      }),
    ).rejects.toThrow(/duplicate key/);
    expect(await rows('tx-2')).toEqual([]);
  });

  it('answers reads asked at the same moment each with its own rows; a failing one fails alone', async () => {
    await sql.step([
      ['INSERT INTO probe (k, v) VALUES (?, ?)', ['together-a', "a'1"]],
      ['INSERT INTO probe (k, v) VALUES (?, ?)', ['together-b', 'b?2']],
    ]);
    const [a, b, none] = await Promise.all([
      sql.all<{ v: string }>('SELECT v FROM probe WHERE k = ?', ['together-a']),
      sql.all<{ v: string }>('SELECT v FROM probe WHERE k = ? AND n IS NULL', ['together-b']),
      sql.all('SELECT v FROM probe WHERE k = ?', ['nobody']),
    ]);
    expect([a, b, none]).toEqual([[{ v: "a'1" }], [{ v: 'b?2' }], []]);
    const [fine, failing] = await Promise.allSettled([
      sql.all('SELECT v FROM probe WHERE k = ?', ['together-a']),
      sql.all('SELECT v FROM no_such_table WHERE k = ?', ['x']),
    ]);
    expect(fine).toEqual({ status: 'fulfilled', value: [{ v: "a'1" }] });
    expect(failing.status).toBe('rejected');
    // A write asked through all() (DELETE … RETURNING) is answered with its row, and what it removed is gone.
    expect(await sql.all('DELETE FROM probe WHERE k = ? RETURNING v', ['together-b'])).toEqual([{ v: 'b?2' }]);
    expect(await rows('together-b')).toEqual([]);
  });

  it('reads a table a page at a time, every row once in key order (state push and pull)', async () => {
    await insertPageRows(sql, 5);
    const keys = async (table: string, key: (r: Record<string, unknown>) => string) => {
      const seen: string[] = [];
      for await (const page of pages(sql, table, 2)) seen.push(...page.map(key));
      return seen;
    };
    expect(await keys('schedctl_meetings', (r) => `${r.workspace}/${r.id}`)).toEqual([
      'w1/a',
      'w1/b',
      'w1/c',
      'w2/a',
      'w3/a',
    ]);
    expect(await keys('schedctl_fires', (r) => String(r.id))).toEqual(['f0', 'f1', 'f2', 'f3', 'f4']);
  });
});

describe("a fire marked sent ahead, with the lead's reads (Fires.recordSentIfNewLead)", () => {
  const fires = () =>
    new Fires(
      async () => sql,
      () => new Date('2031-03-01T12:00:00.000Z'),
    );
  const fire = (email: string) =>
    fires().newEntry({ scope: 'ws-ahead', triggerId: 'trig-1', personEmail: email, answersKey: 'k' });
  const stateOf = async (id: string) =>
    (await backend.db.query<{ state: string }>('SELECT state FROM schedctl_fires WHERE id = $1', [id]))[0]?.state;

  it('is marked sent for a lead with nothing on record, before the reads asked after it are answered', async () => {
    const entry = fire('New.Lead@Acme.example');
    const marked = fires().recordSentIfNewLead(entry);
    expect(await fires().unanswered('ws-ahead', 'new.lead@acme.example', 'trig-1', entry.id)).toEqual([]);
    expect((await marked)?.state).toBe('sent');
    expect(await stateOf(entry.id)).toBe('sent');
    // Without `except`, the same read sees it: a sent fire with no answer.
    expect((await fires().unanswered('ws-ahead', 'new.lead@acme.example', 'trig-1')).map((f) => f.id)).toEqual([
      entry.id,
    ]);
    await fires().forget(entry.id);
  });

  it('is not marked for a lead with a meeting, an attempt or a remembered outcome of the trigger (markSent writes it then)', async () => {
    const ws = 'ws-ahead';
    await insertLeadRecords(sql, ws, 'trig-1');
    for (const email of LEADS_WITH_RECORDS) {
      const entry = fire(email);
      expect(await fires().recordSentIfNewLead(entry), email).toBeUndefined();
      expect(await stateOf(entry.id), email).toBeUndefined();
    }
    // A remembered outcome of another trigger does not count: the route fires this one.
    const other = fires().newEntry({
      scope: ws,
      triggerId: 'trig-2',
      personEmail: 'kept@acme.example',
      answersKey: 'k',
    });
    expect((await fires().recordSentIfNewLead(other))?.id).toBe(other.id);
    // Taken back when the fire does not follow.
    await fires().forget(other.id);
    expect(await stateOf(other.id)).toBeUndefined();
  });
});
