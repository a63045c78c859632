/**
 * A table's rows a page at a time, in the order of its key (`state push` and `state pull` copy
 * whole ledgers: at a million meetings, one SELECT of everything held every row in memory at
 * once). Each page starts after the last key of the one before (keyset paging: an index range,
 * never an OFFSET that rereads what came before); the SQL is the same in both engines.
 */
import type { Sql, SqlValue } from './types.js';

/** Each copied table's key: its row counter, or its primary key. */
export const TABLE_KEYS: Readonly<Record<string, readonly string[]>> = {
  schedctl_attempts: ['seq'],
  schedctl_fires: ['seq'],
  schedctl_meetings: ['workspace', 'id'],
  schedctl_outcomes: ['workspace', 'trigger_id', 'lead'],
  schedctl_event_aliases: ['workspace', 'alias'],
  schedctl_workspace_keys: ['base_url', 'fingerprint'],
};

export const PAGE_ROWS = 2000;

export async function* pages(sql: Sql, table: string, size = PAGE_ROWS): AsyncGenerator<Record<string, SqlValue>[]> {
  const key = TABLE_KEYS[table];
  if (!key) throw new Error(`no key known for ${table}`);
  const order = key.join(', ');
  // A row value, `(a, b) > (?, ?)`: both engines compare it column by column, on the key's index.
  const after = `(${order}) > (${key.map(() => '?').join(', ')})`;
  let last: SqlValue[] | undefined;
  for (;;) {
    const rows = await sql.all<Record<string, SqlValue>>(
      `SELECT * FROM ${table}${last ? ` WHERE ${after}` : ''} ORDER BY ${order} LIMIT ?`,
      [...(last ?? []), size],
    );
    if (rows.length) yield rows;
    if (rows.length < size) return;
    const end = rows[rows.length - 1]!;
    last = key.map((k) => end[k] ?? null);
  }
}
