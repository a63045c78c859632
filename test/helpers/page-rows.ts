/**
 * Rows for the tests of reading a table a page at a time (src/state/sql/pages.ts), the same on
 * SQLite and PostgreSQL: meetings whose keys sort differently as a whole than by their first
 * column alone, and fires numbered by the table's row counter.
 */
import type { Sql } from '../../src/state/sql/types.js';

/** (workspace, id) of each meeting, as inserted; in key order they are w1/a, w1/b, w1/c, w2/a, w3/a. */
export const MEETING_KEYS = [
  ['w2', 'a'],
  ['w1', 'c'],
  ['w1', 'a'],
  ['w1', 'b'],
  ['w3', 'a'],
] as const;

export async function insertPageRows(sql: Sql, fires: number): Promise<void> {
  for (const [workspace, id] of MEETING_KEYS)
    await sql.run(
      `INSERT INTO schedctl_meetings (workspace, id, lead, start_ms, over_ms, status, trigger_id, event, event_id, body)
       VALUES (?, ?, 'l', 1, 2, 'scheduled', NULL, 'e', 'e', '{}')`,
      [workspace, id],
    );
  for (let i = 0; i < fires; i++)
    await sql.run(
      `INSERT INTO schedctl_fires (id, workspace, lead, trigger_id, state, execution_id, prepared_ms, body)
       VALUES (?, 'w', 'l', 't', 'sent', NULL, 1, '{}')`,
      [`f${i}`],
    );
}
