/** What `state status` and `state unlock` read of a team state (schema, counts, holders) and do (release). */
import type { LockOwner } from '../lead-lock.js';
import { countTables } from '../sql/documents.js';
import { HOLDERS_SQL, type PostgresBackend } from './backend.js';
import { schemaVersion, SCHEMA_VERSION } from './schema.js';

export interface HeldLockView extends Omit<LockOwner, 'token'> {
  subject: 'lead' | 'meeting' | 'run';
  /** The lead's email, the meeting's id, or a bulk run's log key. */
  of: string;
  workspace: string;
}

export async function teamCounts(backend: PostgresBackend): Promise<Record<string, number>> {
  // Asked at once: pipelined, one round trip.
  const [counts, [row]] = await Promise.all([
    countTables(await backend.sql()),
    backend.db.query<{ budgets: string; runs: string }>(
      'SELECT (SELECT count(*) FROM schedctl_rate_budgets) AS budgets, (SELECT count(*) FROM schedctl_run_records) AS runs',
    ),
  ]);
  return { ...counts, rateBudgets: Number(row?.budgets), runRecords: Number(row?.runs) };
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

/** Ends the session holding the lock (its advisory lock goes with it), forgets its holder: whether one was held. */
export async function releaseLock(
  backend: PostgresBackend,
  lock: { backendPid: number; subject: string; of: string; workspace: string },
): Promise<boolean> {
  const name = `${lock.subject} ${lock.workspace} ${lock.of}`;
  const [row] = await backend.db.query<{ ok: boolean }>('SELECT pg_terminate_backend($1) AS ok', [lock.backendPid]);
  await backend.db.query('DELETE FROM schedctl_locks WHERE name = $1 AND backend_pid = $2', [name, lock.backendPid]);
  // pg_terminate_backend only signals (its wait is PostgreSQL 14's): the session and its locks end a
  // moment later. Waited for (2 s at most), so a command right after finds the lock free.
  for (let i = 0; row?.ok === true && i < 40; i++) {
    const [left] = await backend.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM pg_stat_activity WHERE pid = $1',
      [lock.backendPid],
    );
    if (!left?.n) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return row?.ok === true;
}

/** Records kept on this machine, waiting for the team state (ledger-spool.ts, the runs' spool). */
export const keptHere = (backend: PostgresBackend): number => backend.spool.pending().length;
