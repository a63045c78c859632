/**
 * One ledger copied into another, row by row, whatever their engines (`state push`: this
 * machine's SQLite into the team state; `state pull`: back). Rows the target has already are
 * left alone, so a second copy changes nothing; read a page at a time (pages.ts), so a million
 * meetings are never in memory at once; written in one transaction of the target, all or none.
 */
import { pages } from './pages.js';
import type { Sql } from './types.js';

/** Each copied table and its name in the reports (`state status`'s, then which workspace each key is in). */
export const COPIED_TABLES = [
  ['schedctl_attempts', 'journal'],
  ['schedctl_meetings', 'meetings'],
  ['schedctl_outcomes', 'outcomes'],
  ['schedctl_fires', 'fires'],
  ['schedctl_event_aliases', 'events'],
  ['schedctl_workspace_keys', 'workspaceKeys'],
] as const;

/**
 * An attempt the target has with its outcome unknown that the source knows (another machine
 * learnt it): the known one replaces it, as the spool never undoes a known outcome.
 */
const ATTEMPT_LEARNT = `ON CONFLICT (id) DO UPDATE SET
  outcome = excluded.outcome, sent = excluded.sent, meeting_id = excluded.meeting_id, execution_id = excluded.execution_id,
  start_ms = excluded.start_ms, touched_ms = excluded.touched_ms, body = excluded.body
  WHERE schedctl_attempts.outcome = 'unknown' AND excluded.outcome <> 'unknown'`;

export interface CopyReport {
  /** Rows written, per table's name. */
  copied: Record<string, number>;
  /** Rows the target had already, per table's name. */
  already: Record<string, number>;
}

/** `learn`: an attempt whose outcome the target does not know takes the source's (a pull). */
export async function copyLedger(from: Sql, into: Sql, o: { learn: boolean }): Promise<CopyReport> {
  const report: CopyReport = { copied: {}, already: {} };
  await into.transaction(async (tx) => {
    for (const [table, name] of COPIED_TABLES) {
      let n = 0;
      let rows = 0;
      const conflict = o.learn && table === 'schedctl_attempts' ? ATTEMPT_LEARNT : 'ON CONFLICT DO NOTHING';
      for await (const page of pages(from, table))
        // Each ledger numbers its own rows (seq): the source's numbers mean nothing in the target.
        for (const { seq: _seq, ...row } of page) {
          rows++;
          const cols = Object.keys(row);
          n += await tx.run(
            `INSERT INTO ${table} (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')}) ${conflict}`,
            cols.map((c) => row[c] ?? null),
          );
        }
      report.copied[name] = n;
      report.already[name] = rows - n;
    }
  });
  return report;
}
