/**
 * What `schedctl state status`, `state push` and `state unlock` do to a team state: read its
 * schema version, counts and lock holders; copy a local ledger into it; release a lock.
 */
import type { LockOwner } from '../lead-lock.js';
import { copyLedger } from '../sql/copy.js';
import { countTables } from '../sql/documents.js';
import type { Sql } from '../sql/types.js';
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
 * Copies this machine's ledger into the team state (sql/copy.ts: rows it has already, and keys
 * it already places in a workspace, are left alone). Its bulk run logs too (the local
 * `schedctl_run_records`, with any log a schedctl from before kept in `runs/<key>.jsonl` moved in
 * first), each whole: a log the team state has records of is left as it is there.
 */
export async function pushLocal(
  backend: PostgresBackend,
  local: Sql,
  dir: string,
  warn?: (line: string) => void,
): Promise<PushReport> {
  await backend.ready();
  const { copied, already } = await copyLedger(local, await backend.sql(), { learn: false });
  const runs = { moved: 0, there: 0 };
  const { localRunRecords, moveRunLogsIn } = await import('../sqlite/run-log.js');
  await moveRunLogsIn(local, dir, warn);
  for (const [key, records] of await localRunRecords(local))
    runs[(await insertRunRecordsOnce(backend.db, key, records)) ? 'moved' : 'there'] += records.length;
  return { moved: { ...copied, runRecords: runs.moved }, alreadyThere: { ...already, runRecords: runs.there } };
}

/**
 * Copies the team state's ledger into this machine's (sql/copy.ts), so a machine leaving the
 * team, or working alone for a while (SCHEDCTL_STATE_URL=local), keeps what the team knows; an
 * outcome this machine did not know is learnt. The bulk run logs stay in the team state: a run
 * is resumed from there.
 */
export async function pullTeam(
  backend: PostgresBackend,
  local: Sql,
): Promise<{ pulled: Record<string, number>; alreadyHere: Record<string, number> }> {
  await backend.ready();
  const { copied, already } = await copyLedger(await backend.sql(), local, { learn: true });
  return { pulled: copied, alreadyHere: already };
}

/** Records kept on this machine, waiting for the team state (ledger-spool.ts, the runs' spool). */
export const keptHere = (backend: PostgresBackend): number => backend.spool.pending().length;
