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
  backend = postgresBackend({ url: pg.url, dir, now: () => new Date(), leadWaitMs: 1000 });
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
  it('lands its writes together or not at all: the first, sent with BEGIN, is rolled back when a later one fails', async () => {
    await expect(
      sql.transaction(async (tx) => {
        await tx.run('INSERT INTO probe (k, v) VALUES (?, ?)', ['together', 'first']);
        await tx.run('INSERT INTO probe (k, v) VALUES (?, ?)', ['together', 'the same key again']);
      }),
    ).rejects.toThrow(/duplicate key/);
    expect(await rows('together')).toEqual([]);
    // And a step whose writes all work commits them all.
    await sql.transaction(async (tx) => {
      expect(await tx.get('SELECT v FROM probe WHERE k = ?', ['both-1'])).toBeUndefined();
      await tx.run('INSERT INTO probe (k, v) VALUES (?, ?)', ['both-1', 'a']);
      await tx.run('INSERT INTO probe (k, v) VALUES (?, ?)', ['both-2', 'b']);
    });
    expect([...(await rows('both-1')), ...(await rows('both-2'))].map((r) => r.v)).toEqual(['a', 'b']);
  });

  it('sends every value as given', async () => {
    const values = ["O'Brien", 'back\\slash \\\\ and \\n', 'a ? in it', 'Zoë 東京 🙂', '', "'); DROP TABLE probe; --"];
    for (const [i, v] of values.entries())
      await sql.transaction(async (tx) => {
        await tx.run('INSERT INTO probe (k, v, n) VALUES (?, ?, ?)', [`lit-${i}`, v, -5]);
        await tx.run('INSERT INTO probe (k, v, n) VALUES (?, ?, ?)', [`param-${i}`, v, 1795786200000]);
      });
    for (const [i, v] of values.entries()) {
      expect(await rows(`lit-${i}`)).toEqual([{ v, n: '-5' }]);
      expect(await rows(`param-${i}`)).toEqual([{ v, n: '1795786200000' }]);
    }
    await sql.transaction(async (tx) => {
      await tx.run('INSERT INTO probe (k, v, n) VALUES (?, ?, ?)', ['nulls', null, null]);
    });
    expect(await rows('nulls')).toEqual([{ v: null, n: null }]);
  });

  it('runs a one-write step (a row read, then written back) and refuses a second write in it', async () => {
    await sql.transaction(
      async (tx) => {
        const held = await tx.get<{ v: string }>('SELECT v FROM probe WHERE k = ?', ['both-1']);
        await tx.run('UPDATE probe SET v = ? WHERE k = ?', [`${held!.v}+`, 'both-1']);
      },
      { oneWrite: true },
    );
    expect((await rows('both-1'))[0]!.v).toBe('a+');
    await expect(
      sql.transaction(
        async (tx) => {
          await tx.run('UPDATE probe SET v = ? WHERE k = ?', ['x', 'both-2']);
          await tx.run('UPDATE probe SET v = ? WHERE k = ?', ['y', 'both-2']);
        },
        { oneWrite: true },
      ),
    ).rejects.toThrow(/a second write in a one-write step/);
  });

  it('sends deferred writes with the next statement or the COMMIT: they land together, in order, or not at all', async () => {
    // Deferred only: BEGIN, both and COMMIT in one simple query.
    await sql.transaction(async (tx) => {
      tx.defer('INSERT INTO probe (k, v) VALUES (?, ?)', ['later-1', "it's deferred"]);
      tx.defer('UPDATE probe SET v = v || ? WHERE k = ?', ['+updated', 'later-1']);
    });
    expect(await rows('later-1')).toEqual([{ v: "it's deferred+updated", n: null }]);
    // A read after a deferred write sees it (the write goes out in front of it).
    const seen = await sql.transaction(async (tx) => {
      tx.defer('INSERT INTO probe (k, v) VALUES (?, ?)', ['later-2', 'x']);
      const row = await tx.get<{ v: string }>('SELECT v FROM probe WHERE k = ?', ['later-2']);
      tx.defer('UPDATE probe SET n = ? WHERE k = ?', [7, 'later-2']);
      return row?.v;
    });
    expect(seen).toBe('x');
    expect(await rows('later-2')).toEqual([{ v: 'x', n: '7' }]);
    // A deferred write that fails at the COMMIT takes the step's earlier writes with it.
    await expect(
      sql.transaction(async (tx) => {
        await tx.run('INSERT INTO probe (k, v) VALUES (?, ?)', ['later-3', 'sent with BEGIN']);
        tx.defer('INSERT INTO probe (k, v) VALUES (?, ?)', ['later-1', 'a key already there']);
      }),
    ).rejects.toThrow(/duplicate key/);
    expect(await rows('later-3')).toEqual([]);
    // The connection is usable again after that failure (rolled back, not left in a failed block).
    await sql.transaction(async (tx) => {
      tx.defer('INSERT INTO probe (k, v) VALUES (?, ?)', ['later-3', 'now']);
      tx.defer('INSERT INTO probe (k, v) VALUES (?, ?)', ['later-4', 'and this']);
    });
    expect([...(await rows('later-3')), ...(await rows('later-4'))].map((r) => r.v)).toEqual(['now', 'and this']);
    // A step that throws after deferring writes sends none of them.
    await expect(
      sql.transaction(async (tx) => {
        tx.defer('INSERT INTO probe (k, v) VALUES (?, ?)', ['later-5', 'never']);
        throw new Error('the step gave up');
      }),
    ).rejects.toThrow(/gave up/);
    expect(await rows('later-5')).toEqual([]);
    // Deferring is for a step's tx; the top-level handle refuses it.
    expect(() => sql.defer('DELETE FROM probe')).toThrow(/transaction's tx/);
  });

  it('counts a deferred write as the one write of a one-write step', async () => {
    await sql.transaction(
      async (tx) => {
        const held = await tx.get<{ v: string }>('SELECT v FROM probe WHERE k = ?', ['later-4']);
        tx.defer('UPDATE probe SET v = ? WHERE k = ?', [`${held!.v}!`, 'later-4']);
      },
      { oneWrite: true },
    );
    expect((await rows('later-4'))[0]!.v).toBe('and this!');
    // (No transaction block: the first write has landed when the second is refused.)
    await expect(
      sql.transaction(
        async (tx) => {
          tx.defer('UPDATE probe SET v = ? WHERE k = ?', ['x', 'later-4']);
          await tx.run('UPDATE probe SET v = ? WHERE k = ?', ['y', 'later-4']);
        },
        { oneWrite: true },
      ),
    ).rejects.toThrow(/a second write in a one-write step/);
    expect((await rows('later-4'))[0]!.v).toBe('x');
  });

  it("sends a step's last statement with its deferred writes and the COMMIT: a read's rows, a write's count", async () => {
    const read = await sql.transaction(async (tx) => {
      tx.defer('INSERT INTO probe (k, v) VALUES (?, ?)', ['last-1', 'a']);
      return tx.last<{ v: string }>('SELECT v FROM probe WHERE k = ?', ['last-1']);
    });
    expect(read).toEqual({ rows: [{ v: 'a' }], changes: 0 });
    const write = await sql.transaction(async (tx) => {
      tx.defer('INSERT INTO probe (k, v) VALUES (?, ?)', ['last-2', 'b']);
      return tx.last('UPDATE probe SET n = ? WHERE k IN (?, ?)', [3, 'last-1', 'last-2']);
    });
    expect(write).toEqual({ rows: [], changes: 2 });
    expect([...(await rows('last-1')), ...(await rows('last-2'))]).toEqual([
      { v: 'a', n: '3' },
      { v: 'b', n: '3' },
    ]);
    // A read alone, and a write whose deferred companion fails: nothing of the step lands.
    expect(await sql.transaction((tx) => tx.last('SELECT v FROM probe WHERE k = ?', ['none']))).toEqual({
      rows: [],
      changes: 0,
    });
    await expect(
      sql.transaction(async (tx) => {
        tx.defer('INSERT INTO probe (k, v) VALUES (?, ?)', ['last-1', 'again']);
        return tx.last('UPDATE probe SET n = ? WHERE k = ?', [4, 'last-2']);
      }),
    ).rejects.toThrow(/duplicate key/);
    expect((await rows('last-2'))[0]!.n).toBe('3');
    // With an asynchronous commit (two more statements before the COMMIT): the same answers.
    expect(
      await sql.transaction(
        async (tx) => {
          tx.defer('UPDATE probe SET v = ? WHERE k = ?', ['a2', 'last-1']);
          return tx.last('UPDATE probe SET n = ? WHERE k IN (?, ?)', [6, 'last-1', 'last-2']);
        },
        { asyncCommit: true },
      ),
    ).toEqual({ rows: [], changes: 2 });
    expect(
      await sql.transaction((tx) => tx.last<{ v: string }>('DELETE FROM probe WHERE k = ? RETURNING v', ['last-1']), {
        asyncCommit: true,
      }),
    ).toEqual({ rows: [{ v: 'a2' }], changes: 1 });
    // Outside a step it is a step of its own.
    expect(await sql.last('UPDATE probe SET n = ? WHERE k = ?', [5, 'last-2'])).toEqual({ rows: [], changes: 1 });
  });

  it('answers reads asked at the same moment each with its own rows', async () => {
    await sql.transaction(async (tx) => {
      tx.defer('INSERT INTO probe (k, v) VALUES (?, ?)', ['together-a', "a'1"]);
      tx.defer('INSERT INTO probe (k, v) VALUES (?, ?)', ['together-b', 'b?2']);
    });
    const [a, b, none, first] = await Promise.all([
      sql.all<{ v: string }>('SELECT v FROM probe WHERE k = ?', ['together-a']),
      sql.all<{ v: string }>('SELECT v FROM probe WHERE k = ? AND n IS NULL', ['together-b']),
      sql.all('SELECT v FROM probe WHERE k = ?', ['nobody']),
      sql.get<{ n: string }>("SELECT count(*) AS n FROM probe WHERE k LIKE 'together-%' LIMIT ?", [1]),
    ]);
    expect([a, b, none, first]).toEqual([[{ v: "a'1" }], [{ v: 'b?2' }], [], { n: '2' }]);
    // A failing read fails alone: those asked with it are answered, and so are the next ones.
    const [fine, failing] = await Promise.allSettled([
      sql.all('SELECT v FROM probe WHERE k = ?', ['together-a']),
      sql.all('SELECT v FROM no_such_table WHERE k = ?', ['x']),
    ]);
    expect(fine).toEqual({ status: 'fulfilled', value: [{ v: "a'1" }] });
    expect(failing.status).toBe('rejected');
    expect(await sql.all('SELECT v FROM probe WHERE k = ?', ['together-a'])).toEqual([{ v: "a'1" }]);
    // A write asked through get() (DELETE … RETURNING) is a step of its own, never gathered with
    // reads: it is answered with its row, and what it removed is gone.
    const [gone, other] = await Promise.all([
      sql.get<{ v: string }>('DELETE FROM probe WHERE k = ? RETURNING v', ['together-b']),
      sql.all('SELECT v FROM probe WHERE k = ?', ['together-a']),
    ]);
    expect(gone).toEqual({ v: 'b?2' });
    expect(other).toEqual([{ v: "a'1" }]);
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

describe('writes sent without waiting for their answer (Sql.later)', () => {
  it('land, say what they changed, and are seen by what this process asks next (written in front of it)', async () => {
    const counts: number[][] = [];
    sql.later!(
      [
        ['INSERT INTO probe (k, v) VALUES (?, ?)', ['ride-1', "it's"]],
        ['UPDATE probe SET v = ? WHERE k = ?', ['x', 'no such key']],
      ],
      (c) => void counts.push(c),
    );
    expect(await sql.get('SELECT v FROM probe WHERE k = ?', ['ride-1'])).toEqual({ v: "it's" });
    await sql.flush!();
    expect(counts).toEqual([[1, 0]]);
  });

  it('flush() waits for them and for what their landing started; with nothing under way it returns at once', async () => {
    await sql.flush!();
    let after = false;
    sql.later!([['UPDATE probe SET v = ? WHERE k = ?', ['x', 'nothing here']]], async () => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      after = true;
    });
    await sql.flush!();
    expect(after).toBe(true);
  });
});

describe("a fire marked sent ahead, with the lead's reads (Fires.recordSentAhead)", () => {
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
    const marked = fires().recordSentAhead(entry);
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
      const marked = fires().recordSentAhead(entry);
      await fires().flush();
      expect(await marked, email).toBeUndefined();
      expect(await stateOf(entry.id), email).toBeUndefined();
    }
    // A remembered outcome of another trigger does not count: the route fires this one.
    const other = fires().newEntry({
      scope: ws,
      triggerId: 'trig-2',
      personEmail: 'kept@acme.example',
      answersKey: 'k',
    });
    const marked = fires().recordSentAhead(other);
    await fires().flush();
    expect((await marked)?.id).toBe(other.id);
    // Taken back when the fire does not follow (forgetLater).
    await fires().forgetLater(other.id);
    await fires().flush();
    expect(await stateOf(other.id)).toBeUndefined();
  });
});
