/**
 * Bulk run logs in the team database, a row of `schedctl_run_records` per record (bulk/run-log.ts),
 * so a run stopped on one machine resumes on another. One run of a log at a time: a session lock
 * (locks.ts), a second run refused naming the first. A failed `started` append stops that row; any
 * other record is a ledger write (sql.ts), kept in the team spool when it fails after a send.
 */
import { foldRunRecords, parseRecord, type RunLogId, type RunLogStore, type RunRecord } from '../../bulk/run-log.js';
import { CliError, EXIT } from '../../errors.js';
import type { LockOwner } from '../lead-lock.js';
// Types only (the backend passes what runs): loaded on demand, this module shares no chunk with it.
import type { Database } from './connect.js';
import type { Sql } from '../sql/types.js';
import type { SpooledStatement } from './ledger-spool.js';
import type { holderOf, takeLock } from './locks.js';

export interface PgRunLogDeps {
  db: Database;
  /** The ledger's statements (sql.ts): a record's write kept on this machine when the database fails after a send. */
  sql: () => Promise<Sql>;
  /** The schema is there and current, what this machine kept moved in (once per process). */
  ready: () => Promise<void>;
  /** The session locks (locks.ts), from the backend. */
  locks: { holderOf: typeof holderOf; takeLock: typeof takeLock };
}

/** The lock's name: `run <workspace> <key>` (like a lead's: subject, workspace, what). */
export const runLockName = (id: RunLogId): string => `run ${id.workspace} ${id.key}`;

export function pgRunLogs(deps: PgRunLogDeps): RunLogStore {
  const { db } = deps;
  const failure = (error: unknown, notSent?: string): Error =>
    error instanceof Error && 'exitCode' in error ? error : db.unavailable(error, undefined, notSent);
  /** `work` once the schema is current, a failure said as the team state's. */
  const ready = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      await deps.ready();
      return await work();
    } catch (error) {
      throw failure(error);
    }
  };
  return {
    read: (id) =>
      ready(async () => {
        const rows = await db.query<{ record: unknown }>(
          'SELECT record FROM schedctl_run_records WHERE log_key = $1 ORDER BY seq',
          [id.key],
        );
        return foldRunRecords(rows.flatMap((r) => parseRecord(JSON.stringify(r.record)) ?? []));
      }),

    async open(id, opts = {}) {
      const now = opts.now ?? (() => new Date());
      const name = runLockName(id);
      // Never waits (the other run may take hours): refused naming who holds it.
      const lock = await ready(
        async () =>
          (await deps.locks.takeLock(db, name)) ??
          Promise.reject(new RunInProgressError(await deps.locks.holderOf(db, name))),
      );
      let closed = false;
      const where = `${db.where} (run log ${id.key.slice(0, 12)})`;
      return {
        path: where,
        async append(input) {
          if (closed) throw new Error(`run log ${where} is closed`);
          const record: RunRecord = { ...input, at: input.at ?? now().toISOString() };
          if (record.status !== 'started') {
            // What a sent row became: kept on this machine when the database fails (sql.ts).
            await (await deps.sql()).run(RUN_RECORD_INSERT, [id.key, JSON.stringify(record)]);
            return record;
          }
          try {
            // The lock went with its connection: another run may take over, so no row is started.
            if (!lock.alive()) {
              await db.query('SELECT 1'); // the database's own failure, when it is one
              throw new Error('the connection holding this run was lost');
            }
            await db.query(RUN_RECORD_INSERT, [id.key, JSON.stringify(record)]);
          } catch (error) {
            throw failure(error, `line ${record.row}`);
          }
          return record;
        },
        async close() {
          if (closed) return;
          closed = true;
          await lock.release();
        },
      };
    },
  };
}

export class RunInProgressError extends CliError {
  constructor(owner: LockOwner | undefined) {
    const who = owner
      ? `${owner.user}@${owner.host}, pid ${owner.pid}, since ${owner.since} (${owner.command.replace(/\s+/g, ' ')})`
      : 'a schedctl run that has not said who it is';
    super(
      'RUN_IN_PROGRESS',
      `another schedctl run is working through this input against this workspace: ${who}; nothing was sent`,
      EXIT.conflict,
      {
        hint: 'wait for it to finish, then run this again to continue where it stopped (a killed run releases the input at once); `schedctl state status` lists who holds what',
      },
    );
  }
}

const RUN_RECORD_INSERT = 'INSERT INTO schedctl_run_records (log_key, record) VALUES ($1, $2)';

/** A record's INSERT as the team spool keeps it. */
export const runRecordInsert = (key: string, record: RunRecord): SpooledStatement => ({
  sql: RUN_RECORD_INSERT,
  params: [key, JSON.stringify(record)],
});

/** Copies a run log in unless the database has it (whether it did); locked, so two pushes copy it once. */
export async function insertRunRecordsOnce(db: Database, key: string, records: RunRecord[]): Promise<boolean> {
  return db.transaction(async (client) => {
    await client.query(`SELECT pg_advisory_xact_lock(hashtextextended('schedctl push ' || $1, 0))`, [key]);
    const has = await client.query('SELECT 1 FROM schedctl_run_records WHERE log_key = $1 LIMIT 1', [key]);
    if (has.rowCount) return false;
    // The log's records in one statement, in their order.
    if (records.length)
      await client.query(
        `INSERT INTO schedctl_run_records (log_key, record)
         SELECT $1, r FROM jsonb_array_elements($2::jsonb) WITH ORDINALITY AS t(r, n) ORDER BY n`,
        [key, JSON.stringify(records)],
      );
    return true;
  });
}
