/**
 * What `schedctl state status`, `state push` and `state unlock` do to a team state: read its
 * schema version, counts and lock holders; copy a local ledger into it; release a lock.
 */
import { join } from 'node:path';
import { runLogFiles } from '../../bulk/run-log.js';
import { JsonFile } from '../json-file.js';
import type { LockOwner } from '../lead-lock.js';
import { DEFAULT_LOCK_TIMING } from '../lock.js';
import { HOLDERS_SQL, LEDGER_KINDS, mergeRecords, PgDocument, recordsOf, type PostgresBackend } from './backend.js';
import { insertRunRecordsOnce } from './run-log.js';
import { schemaVersion, SCHEMA_VERSION } from './schema.js';

export interface HeldLockView extends Omit<LockOwner, 'token'> {
  subject: 'lead' | 'meeting' | 'run';
  /** The lead's email, the meeting's id, or a bulk run's log key. */
  of: string;
  workspace: string;
}

/** `journal.json` → `journal`: the document's name in counts. */
export const docName = (fileName: string): string => fileName.replace(/\.json$/, '');

export async function teamCounts(backend: PostgresBackend): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const kind of LEDGER_KINDS)
    counts[docName(kind.name)] = recordsOf(kind, await backend.document(kind).read()).size;
  const [row] = await backend.db.query<{ n: string }>('SELECT count(*) AS n FROM schedctl_rate_budgets');
  counts.rateBudgets = Number(row?.n ?? 0);
  const [runs] = await backend.db.query<{ n: string }>('SELECT count(*) AS n FROM schedctl_run_records');
  counts.runRecords = Number(runs?.n ?? 0);
  return counts;
}

export async function teamSchemaVersion(backend: PostgresBackend): Promise<number> {
  await backend.ready();
  return (await schemaVersion(await backend.db.pool())) ?? 0;
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
 * Copies the config directory's ledger into the team state; records it has already are left
 * alone. Its bulk run logs (`runs/<key>.jsonl`) too, each whole: a log the team state already
 * has records of is left as it is there (so a second push moves nothing).
 */
export async function pushLocal(backend: PostgresBackend, dir: string): Promise<PushReport> {
  const report: PushReport = { moved: {}, alreadyThere: {} };
  await backend.ready();
  for (const kind of LEDGER_KINDS) {
    const records = recordsOf(kind, await new JsonFile(dir, kind, DEFAULT_LOCK_TIMING).read());
    const doc = new PgDocument(kind, {
      db: backend.db,
      ready: () => backend.ready(),
      spool: backend.spool,
      onKept: () => {},
    });
    const moved = records.size ? await doc.update((d) => mergeRecords(kind, d, records, 'add-missing')) : 0;
    report.moved[docName(kind.name)] = moved;
    report.alreadyThere[docName(kind.name)] = records.size - moved;
  }
  report.moved.runRecords = 0;
  report.alreadyThere.runRecords = 0;
  for (const { key, records } of runLogFiles(join(dir, 'runs'))) {
    if (await insertRunRecordsOnce(backend.db, key, records)) report.moved.runRecords += records.length;
    else report.alreadyThere.runRecords += records.length;
  }
  return report;
}

/** Records kept on this machine, waiting for the team state (spool.ts). */
export async function keptHere(backend: PostgresBackend): Promise<number> {
  const runs = runLogFiles(backend.runSpoolDir).reduce((n, f) => n + f.records.length, 0);
  return (await backend.spool.held()).reduce((n, h) => n + h.records.size, runs);
}

export const spoolDir = (configDir: string): string => join(configDir, 'team-spool');
