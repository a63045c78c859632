/**
 * A lead with each kind of record a route looks at before firing, one lead each (state/fires.ts
 * recordSentIfNewLead marks no fire for them): met@ has a meeting, tried@ an attempt, kept@ a
 * remembered outcome of `triggerId`. The rows are the minimum the tables take.
 */
import type { Sql } from '../../src/state/sql/types.js';

export const LEADS_WITH_RECORDS = ['met@acme.example', 'tried@acme.example', 'kept@acme.example'];

export async function insertLeadRecords(sql: Sql, workspace: string, triggerId: string): Promise<void> {
  await sql.run(
    'INSERT INTO schedctl_meetings (workspace, id, lead, start_ms, over_ms, status, event, event_id, body) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
    [workspace, 'm-1', 'met@acme.example', 1, 2, 'accepted', 'e', 'e', '{}'],
  );
  await sql.run(
    'INSERT INTO schedctl_attempts (id, workspace, lead, reservation_id, outcome, sent, touched_ms, body) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    ['a-1', workspace, 'tried@acme.example', 'r-1', 'unknown', 1, 1, '{}'],
  );
  await sql.run(
    'INSERT INTO schedctl_outcomes (workspace, trigger_id, lead, execution_id, body) VALUES (?, ?, ?, ?, ?)',
    [workspace, triggerId, 'kept@acme.example', 'x-1', '{}'],
  );
}
