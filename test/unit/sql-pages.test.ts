/**
 * `state push` and `state pull` read a table a page at a time (src/state/sql/pages.ts): every row
 * once, in key order, whatever the page size and however the key is made (a row counter, or a
 * primary key of two or three columns).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pages, TABLE_KEYS } from '../../src/state/sql/pages.js';
import { COPIED_TABLES } from '../../src/state/sql/copy.js';
import { releaseLedger, sqliteLedger, type SqliteLedger } from '../../src/state/sqlite/engine.js';
import { insertPageRows } from '../helpers/page-rows.js';

const dir = mkdtempSync(join(tmpdir(), 'sql-pages-'));
let sql: SqliteLedger;

beforeAll(async () => {
  sql = sqliteLedger(dir, { busyMs: 2_000, hasDocuments: () => false, importDocuments: undefined });
  await sql.transaction(async (tx) => {
    await insertPageRows(tx, 7);
    for (const [w, t, l] of [
      ['w1', 't', 'b'],
      ['w1', 't', 'a'],
      ['w1', 's', 'z'],
      ['w0', 'z', 'z'],
    ])
      await tx.run(
        `INSERT INTO schedctl_outcomes (workspace, trigger_id, lead, execution_id, body) VALUES (?, ?, ?, 'x', '{}')`,
        [w!, t!, l!],
      );
  });
});
afterAll(() => {
  releaseLedger(sql);
  rmSync(dir, { recursive: true, force: true });
});

async function read(table: string, size: number): Promise<{ rows: string[]; sizes: number[] }> {
  const rows: string[] = [];
  const sizes: number[] = [];
  for await (const page of pages(sql, table, size)) {
    sizes.push(page.length);
    rows.push(...page.map((r) => TABLE_KEYS[table]!.map((k) => String(r[k])).join('/')));
  }
  return { rows, sizes };
}

describe('a table a page at a time', () => {
  it('gives every row once, in key order, whatever the page size', async () => {
    const meetings = ['w1/a', 'w1/b', 'w1/c', 'w2/a', 'w3/a'];
    for (const size of [1, 2, 4, 5, 6])
      expect((await read('schedctl_meetings', size)).rows, `size ${size}`).toEqual(meetings);
    expect((await read('schedctl_meetings', 2)).sizes).toEqual([2, 2, 1]);
    // A page exactly full asks once more, and gets nothing.
    expect((await read('schedctl_meetings', 5)).sizes).toEqual([5]);
    expect((await read('schedctl_outcomes', 3)).rows).toEqual(['w0/z/z', 'w1/s/z', 'w1/t/a', 'w1/t/b']);
    expect((await read('schedctl_fires', 3)).rows).toEqual(['1', '2', '3', '4', '5', '6', '7']);
    expect((await read('schedctl_fires', 3)).sizes).toEqual([3, 3, 1]);
    expect((await read('schedctl_event_aliases', 3)).sizes).toEqual([]);
  });

  it('knows the key of every table that push and pull copy', async () => {
    for (const [table] of COPIED_TABLES) expect(TABLE_KEYS[table], table).toBeDefined();
    await expect(pages(sql, 'schedctl_nope').next()).rejects.toThrow('no key known for schedctl_nope');
  });
});
