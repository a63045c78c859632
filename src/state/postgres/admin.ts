/**
 * What `schedctl state status`, `state push` and `state unlock` do to a team state: read its
 * schema version, counts and lock holders; copy a local ledger into it; release a lock.
 */
import { runLogFiles } from '../../bulk/run-log.js';
import type { LockOwner } from '../lead-lock.js';
import { countTables, type LedgerCounts } from '../sql/documents.js';
import { pages } from '../sql/pages.js';
import { LEDGER_TABLES } from '../sql/tables.js';
import type { Sql, SqlValue } from '../sql/types.js';
import { HOLDERS_SQL, type PostgresBackend } from './backend.js';
import { insertRunRecordsOnce } from './run-log.js';
import { schemaVersion, SCHEMA_VERSION } from './schema.js';

export interface HeldLockView extends Omit<LockOwner, 'token'> {
  subject: 'lead' | 'meeting' | 'run';
  /** The lead's email, the meeting's id, or a bulk run's log key. */
  of: string;
  workspace: string;
}

export async function teamCounts(backend: PostgresBackend): Promise<Record<string, number>> {
  const counts: Record<string, number> = { ...(await countTables(await backend.sql())) };
  const [row] = await backend.db.query<{ n: string }>('SELECT count(*) AS n FROM schedctl_rate_budgets');
  counts.rateBudgets = Number(row?.n ?? 0);
  const [runs] = await backend.db.query<{ n: string }>('SELECT count(*) AS n FROM schedctl_run_records');
  counts.runRecords = Number(runs?.n ?? 0);
  return counts;
}

export async function teamSchemaVersion(backend: PostgresBackend): Promise<number> {
  await backend.ready();
  return (await schemaVersion(backend.db)) ?? 0;
}

export { SCHEMA_VERSION };

/** The locks held right now, and by whom (a row whose session is gone is not a lock). */
export async function heldLocks(backend: PostgresBackend): Promise<(HeldLockView & { backendPid: number })[]> {
  await backend.ready();
  const rows = await backend.db.query<{ name: string; owner: LockOwner; backend_pid: number }>(HOLDERS_SQL);
  return rows.map(({ name, owner, backend_pid }) => {
    const [subject, workspace = '', ...rest] = name.split(' ');
    const { token: _token, ...who } = owner;
    return {
      subject: subject === 'meeting' || subject === 'run' ? subject : 'lead',
      of: rest.join(' '),
      workspace,
      ...who,
      backendPid: backend_pid,
    };
  });
}

/**
 * Ends the session holding the lock (its advisory lock goes with it) and forgets its holder.
 * Resolves to whether one was held.
 */
export async function releaseLock(
  backend: PostgresBackend,
  lock: { backendPid: number; subject: string; of: string; workspace: string },
): Promise<boolean> {
  const name = `${lock.subject} ${lock.workspace} ${lock.of}`;
  const [row] = await backend.db.query<{ ok: boolean }>('SELECT pg_terminate_backend($1) AS ok', [lock.backendPid]);
  await backend.db.query('DELETE FROM schedctl_locks WHERE name = $1 AND backend_pid = $2', [name, lock.backendPid]);
  return row?.ok === true;
}

export interface PushReport {
  moved: Record<string, number>;
  alreadyThere: Record<string, number>;
}

/**
 * Copies this machine's ledger (its SQLite tables) into the team state, row by row; rows it has
 * already are left alone. Its bulk run logs (the local `schedctl_run_records`, with any log a
 * schedctl from before kept in `runs/<key>.jsonl` moved in first) too, each whole: a log the team
 * state already has records of is left as it is there (so a second push moves nothing).
 */
export async function pushLocal(
  backend: PostgresBackend,
  local: Sql,
  dir: string,
  warn?: (line: string) => void,
): Promise<PushReport> {
  const report: PushReport = { moved: {}, alreadyThere: {} };
  await backend.ready();
  const team = await backend.sql();
  const names = Object.keys(await countTables(local)) as (keyof LedgerCounts)[];
  for (const [i, table] of LEDGER_TABLES.entries()) {
    // A page at a time (sql/pages.ts), all of a table in one team transaction.
    const [moved, seen] = await team.transaction(async (tx) => {
      let n = 0;
      let rows = 0;
      for await (const page of pages(local, table))
        // The row counter is the database's own: the team state numbers the rows it is given.
        for (const { seq: _seq, ...row } of page) {
          rows++;
          const cols = Object.keys(row);
          n += await tx.run(
            `INSERT INTO ${table} (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')}) ON CONFLICT DO NOTHING`,
            cols.map((c) => row[c] ?? null),
          );
        }
      return [n, rows];
    });
    report.moved[names[i]!] = moved;
    report.alreadyThere[names[i]!] = seen - moved;
  }
  // Which workspace each key is in: without it a rotated key would start an empty workspace there.
  // A key the team state already places is left where it is (the team's record wins).
  const keys = await local.all<Record<string, SqlValue>>(
    'SELECT base_url, fingerprint, workspace, names, added_ms FROM schedctl_workspace_keys',
  );
  report.moved.workspaceKeys = await team.transaction(async (tx) => {
    let n = 0;
    for (const k of keys)
      n += await tx.run(
        `INSERT INTO schedctl_workspace_keys (base_url, fingerprint, workspace, names, added_ms) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT DO NOTHING`,
        [k.base_url ?? null, k.fingerprint ?? null, k.workspace ?? null, k.names ?? null, k.added_ms ?? null],
      );
    return n;
  });
  report.alreadyThere.workspaceKeys = keys.length - report.moved.workspaceKeys;
  report.moved.runRecords = 0;
  report.alreadyThere.runRecords = 0;
  const { localRunRecords, moveRunLogsIn } = await import('../sqlite/run-log.js');
  await moveRunLogsIn(local, dir, warn);
  for (const [key, records] of await localRunRecords(local)) {
    if (await insertRunRecordsOnce(backend.db, key, records)) report.moved.runRecords += records.length;
    else report.alreadyThere.runRecords += records.length;
  }
  return report;
}

export interface PullReport {
  pulled: Record<string, number>;
  alreadyHere: Record<string, number>;
}

/**
 * An attempt this machine has with its outcome unknown that the team state knows (another
 * machine learnt it): the team's copy replaces it, as the spool never undoes a known outcome.
 * Every other row this machine has already is left as it is.
 */
const ATTEMPT_LEARNT = `ON CONFLICT (id) DO UPDATE SET
  outcome = excluded.outcome, sent = excluded.sent, meeting_id = excluded.meeting_id, execution_id = excluded.execution_id,
  start_ms = excluded.start_ms, touched_ms = excluded.touched_ms, body = excluded.body
  WHERE schedctl_attempts.outcome = 'unknown' AND excluded.outcome <> 'unknown'`;

/**
 * Copies the team state's ledger into this machine's (its SQLite tables), row by row, in one
 * local transaction: a machine leaving the team, or working alone for a while
 * (SCHEDCTL_STATE_URL=local), keeps what the team knows. Rows it has already are left alone
 * (but an outcome it did not know), so a second pull changes nothing. Which workspace each key
 * is in comes too (`workspaceKeys`; a key this machine already places stays where it is), so a
 * key rotated on another machine finds its leads here. The bulk run logs stay in the team
 * state: a run is resumed from there.
 */
export async function pullTeam(backend: PostgresBackend, local: Sql): Promise<PullReport> {
  const report: PullReport = { pulled: {}, alreadyHere: {} };
  await backend.ready();
  const team = await backend.sql();
  const names = Object.keys(await countTables(local)) as (keyof LedgerCounts)[];
  const tables: [string, string][] = [
    ...LEDGER_TABLES.map((table, i): [string, string] => [table, names[i]!]),
    ['schedctl_workspace_keys', 'workspaceKeys'],
  ];
  // Written here in one transaction, all of it or none; read from the team a page at a time
  // (sql/pages.ts), so a million meetings are never in memory at once.
  await local.transaction(async (tx) => {
    for (const [table, name] of tables) {
      let n = 0;
      let rows = 0;
      for await (const page of pages(team, table))
        // This machine numbers its own rows (seq): the team's numbers mean nothing here.
        for (const { seq: _seq, ...row } of page) {
          rows++;
          const cols = Object.keys(row);
          const conflict = table === 'schedctl_attempts' ? ATTEMPT_LEARNT : 'ON CONFLICT DO NOTHING';
          n += await tx.run(
            `INSERT INTO ${table} (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')}) ${conflict}`,
            cols.map((c) => row[c] ?? null),
          );
        }
      report.pulled[name] = n;
      report.alreadyHere[name] = rows - n;
    }
  });
  return report;
}

/** Records kept on this machine, waiting for the team state (ledger-spool.ts, the runs' spool). */
export async function keptHere(backend: PostgresBackend): Promise<number> {
  const runs = runLogFiles(backend.runSpoolDir).reduce((n, f) => n + f.records.length, 0);
  return backend.spool.pending().length + runs;
}
