/**
 * How a ledger step runs on the team database (postgres/sql.ts): reads without a transaction
 * block, BEGIN sent with the first write (its values as quoted literals), a one-write step
 * without a block at all. What must hold whatever the round trips: a step's writes land together
 * or not at all, and a value reaches the database exactly as given.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresBackend, type PostgresBackend } from '../../src/state/postgres/backend.js';
import { Fires } from '../../src/state/fires.js';
import { withLiterals } from '../../src/state/postgres/sql.js';
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

  it('sends every value as given, the one that goes with BEGIN as a quoted literal too', async () => {
    const values = ["O'Brien", 'back\\slash \\\\ and \\n', 'a ? in it', 'Zoë 東京 🙂', '', "'); DROP TABLE probe; --"];
    for (const [i, v] of values.entries())
      await sql.transaction(async (tx) => {
        // The first write goes with BEGIN (literals); the second as a bound parameter.
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
    await expect(
      sql.transaction(
        async (tx) => {
          tx.defer('UPDATE probe SET v = ? WHERE k = ?', ['x', 'later-4']);
          await tx.run('UPDATE probe SET v = ? WHERE k = ?', ['y', 'later-4']);
        },
        { oneWrite: true },
      ),
    ).rejects.toThrow(/a second write in a one-write step/);
    expect((await rows('later-4'))[0]!.v).toBe('and this!');
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
    const settings = await backend.db.query<{ setting: string }>(
      "SELECT setting FROM pg_settings WHERE name = 'synchronous_commit'",
    );
    expect(settings).toEqual([{ setting: 'on' }]); // for that transaction only
    // Outside a step it is a step of its own.
    expect(await sql.last('UPDATE probe SET n = ? WHERE k = ?', [5, 'last-2'])).toEqual({ rows: [], changes: 1 });
  });

  it('sends reads asked at the same moment in one round trip, each answered with its own rows', async () => {
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
    // One failing read fails those asked with it; the next ones are answered again.
    const asked = [
      sql.all('SELECT v FROM probe WHERE k = ?', ['together-a']),
      sql.all('SELECT v FROM no_such_table WHERE k = ?', ['x']),
    ];
    for (const r of asked) await expect(r).rejects.toThrow();
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

  it('writes each ? of a statement as its value, NULL for null', () => {
    const client = { escapeLiteral: (s: string) => `'${s.replace(/'/g, "''")}'` };
    expect(withLiterals(client, 'UPDATE t SET a = ?, b = ? WHERE c = ?', ["it's", null, 7])).toBe(
      "UPDATE t SET a = 'it''s', b = NULL WHERE c = '7'",
    );
  });
});

/** The text of every query the pool's connection sends from now on (each a round trip). */
async function queryLog(): Promise<string[]> {
  const log: string[] = [];
  const pool = await backend.db.pool();
  const watch = (client: { query: (...a: unknown[]) => unknown }) => {
    const query = client.query.bind(client);
    client.query = (...a: unknown[]) => {
      const first = a[0] as string | { text?: string };
      log.push(typeof first === 'string' ? first : String(first.text));
      return query(...a);
    };
  };
  const watched = new WeakSet<object>();
  pool.on('acquire', (client) => {
    if (watched.has(client)) return;
    watched.add(client);
    watch(client as unknown as { query: (...a: unknown[]) => unknown });
  });
  return log;
}

describe('writes that ride with the next step (Sql.later)', () => {
  it("go out in front of the next step's first statement, in its transaction, and say what they changed", async () => {
    const log = await queryLog();
    const counts: number[][] = [];
    sql.later!(
      [
        ['INSERT INTO probe (k, v) VALUES (?, ?)', ['ride-1', "it's"]],
        ['UPDATE probe SET v = ? WHERE k = ?', ['x', 'no such key']],
      ],
      (c) => void counts.push(c),
    );
    expect(await rows('ride-1')).toEqual([]); // not sent by itself
    const before = log.length;
    await sql.transaction(async (tx) => {
      await tx.run('INSERT INTO probe (k, v) VALUES (?, ?)', ['ride-2', 'b']);
    });
    // One query for the riders and the step's write (BEGIN with them), then its COMMIT.
    expect(log.slice(before)).toHaveLength(2);
    expect(log[before]).toMatch(
      /^BEGIN; INSERT INTO probe .*'ride-1'.*; UPDATE probe .*; INSERT INTO probe .*'ride-2'/s,
    );
    expect((await rows('ride-1'))[0]?.v).toBe("it's");
    await sql.flush!();
    expect(counts).toEqual([[1, 0]]);
  });

  it('are seen by a read of this process that comes before any write', async () => {
    sql.later!([['INSERT INTO probe (k, v) VALUES (?, ?)', ['ride-read', 'seen']]]);
    expect(await sql.get('SELECT v FROM probe WHERE k = ?', ['ride-read'])).toEqual({ v: 'seen' });
  });

  it('wait for the next step when the one carrying them fails (rolled back with it), and flush() sends them', async () => {
    await sql.run('INSERT INTO probe (k, v) VALUES (?, ?)', ['ride-taken', 'a']);
    const counts: number[][] = [];
    sql.later!([['INSERT INTO probe (k, v) VALUES (?, ?)', ['ride-kept', 'k']]], (c) => void counts.push(c));
    await expect(sql.run('INSERT INTO probe (k, v) VALUES (?, ?)', ['ride-taken', 'again'])).rejects.toThrow(
      /duplicate key/,
    );
    expect(await backend.db.query('SELECT v FROM probe WHERE k = $1', ['ride-kept'])).toEqual([]);
    expect(counts).toEqual([]);
    await sql.flush!();
    expect(await rows('ride-kept')).toEqual([{ v: 'k', n: null }]);
    expect(counts).toEqual([[1]]);
  });

  it("flush() waits for a step already carrying them (another caller's) to land", async () => {
    const counts: number[][] = [];
    sql.later!([['INSERT INTO probe (k, v) VALUES (?, ?)', ['ride-carried', 'c']]], (c) => void counts.push(c));
    const other = sql.run('INSERT INTO probe (k, v) VALUES (?, ?)', ['ride-carrier', 'd']);
    await sql.flush!();
    expect(counts).toEqual([[1]]);
    await other;
  });

  it('flush() sends nothing when nothing waits, and waits for what landing started', async () => {
    const log = await queryLog();
    const before = log.length;
    await sql.flush!();
    expect(log.length).toBe(before);
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

  it('is marked sent for a lead with nothing on record, landing with the next step (the reads), before their answer', async () => {
    const log = await queryLog();
    const entry = fire('New.Lead@Acme.example');
    const marked = fires().recordSentAhead(entry);
    const before = log.length;
    // The lead's reads: the mark goes in front of them, in the same query.
    const [unanswered] = await Promise.all([
      fires().unanswered('ws-ahead', 'new.lead@acme.example', 'trig-1', entry.id),
    ]);
    expect(unanswered).toEqual([]);
    expect(log.length - before).toBe(1);
    expect(log[before]).toMatch(/INSERT INTO schedctl_fires .* WHERE NOT EXISTS .*SELECT \* FROM schedctl_fires/s);
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
    // Taken back with the next step when the fire does not follow (forgetLater).
    await fires().forgetLater(other.id);
    await fires().flush();
    expect(await stateOf(other.id)).toBeUndefined();
  });
});
