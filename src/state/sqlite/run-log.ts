/**
 * This machine's bulk run logs (bulk/run-log.ts) in its SQLite ledger: one row of
 * `schedctl_run_records` per record, keyed by the log's key, numbered by `seq` (the order they
 * were appended), the same table as the team state's (postgres/run-log.ts).
 *
 * - One run of a log at a time on this machine: the lock a schedctl from before took
 *   (`runs/<key>.jsonl.lock`, its holder's pid, host and start beside it), so a run of either
 *   version refuses the other (RUN_IN_PROGRESS), and a killed run's lock is taken over at once.
 * - Each append is one INSERT in autocommit, committed when it resolves: the bulk runner awaits
 *   a row's `started` record before sending it, so a process killed at any instant leaves a log
 *   a re-run resolves (a record is in the table whole, or not at all).
 * - A log a schedctl from before wrote (`runs/<key>.jsonl`) moves into the table the first time
 *   it is read or opened: its readable records, in order, in one transaction (a torn last line
 *   and an unreadable line elsewhere are dropped with a warning, as that reader did); then the
 *   file goes to `runs-before-sqlite/`, said once on stderr.
 */
import { chmodSync, mkdirSync, readdirSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import {
  foldRunRecords,
  lockRun,
  parseRecord,
  parseRunLines,
  RUN_LOG_FILE,
  runLockFile,
  type RunLogStore,
  type RunRecord,
} from '../../bulk/run-log.js';
import { CliError } from '../../errors.js';
import { StateWriteError } from '../errors.js';
import { get, type Sql } from '../sql/types.js';

/** Where a moved log's file is kept (beside `runs/`), never read again. */
export const RUNS_ASIDE = 'runs-before-sqlite';

const INSERT = 'INSERT INTO schedctl_run_records (log_key, record, at_ms) VALUES (?, ?, ?)';

export interface SqliteRunLogDeps {
  /** The config directory. */
  dir: string;
  sql: Sql;
  /** Stderr: where a moved log was put. */
  warn?: ((line: string) => void) | undefined;
}

export function sqliteRunLogs(deps: SqliteRunLogDeps): RunLogStore {
  const { dir, sql } = deps;
  return {
    async read(id, opts = {}) {
      const warn = opts.onWarning ?? deps.warn;
      await moveRunLogIn(sql, dir, id.key, warn);
      const rows = await sql.all<{ record: string }>(
        'SELECT record FROM schedctl_run_records WHERE log_key = ? ORDER BY seq',
        [id.key],
      );
      // None in the table, and the file still there: a run of a schedctl from before is writing
      // it (moveRunLogIn left it): its records are read where they are.
      if (rows.length === 0) {
        const file = logFile(dir, id.key);
        const text = readIfThere(file);
        if (text !== undefined) return foldRunRecords(parseRunLines(text, file, warn));
      }
      return foldRunRecords(rows.flatMap((r) => parseRecord(r.record) ?? []));
    },

    async open(id, opts = {}) {
      const now = opts.now ?? (() => new Date());
      const runs = join(dir, 'runs');
      // A directory that cannot take the lock is said as the state store says it (STATE_WRITE,
      // what to do), before any row is sent; never as an unexpected failure.
      try {
        mkdirSync(runs, { recursive: true, mode: 0o700 });
        chmodSync(runs, 0o700);
      } catch (error) {
        throw new StateWriteError(runs, error);
      }
      const lock = runLockFile(dir, id.key);
      const release = await lockRun(lock, opts.staleMs ?? 30_000, now).catch((error: unknown) => {
        throw error instanceof CliError ? error : new StateWriteError(lock, error);
      });
      try {
        await moveRunLogIn(sql, dir, id.key, deps.warn, { held: true });
      } catch (error) {
        await release().catch(() => {});
        throw error;
      }
      let closed = false;
      const where = `${sql.where} (run log ${id.key.slice(0, 12)})`;
      return {
        path: where,
        async append(input) {
          if (closed) throw new Error(`run log ${where} is closed`);
          const record: RunRecord = { ...input, at: input.at ?? now().toISOString() };
          await sql.run(INSERT, [id.key, JSON.stringify(record), atMs(record)]);
          return record;
        },
        async close() {
          if (closed) return;
          closed = true;
          await release().catch(() => {});
        },
      };
    },
  };
}

/** When a record was made, for the table's `at_ms` (0 for an `at` that is no time). */
const atMs = (r: RunRecord): number => {
  const ms = Date.parse(r.at);
  return Number.isNaN(ms) ? 0 : ms;
};

const logFile = (dir: string, key: string) => join(dir, 'runs', `${key}.jsonl`);

/** The file's text; undefined when there is none. */
function readIfThere(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new StateWriteError(file, error);
  }
}

/**
 * Moves the log `key` that a schedctl from before kept in `runs/<key>.jsonl` into the table;
 * resolves to how many records it wrote. The records go in one transaction, unless the table
 * has records of the log already (the file is then one a move put in the table but could not
 * put aside): then only the file is put aside. Under the log's run lock (`held`: the caller
 * holds it): a log a running schedctl from before still appends to is left where it is, said on
 * `warn`, and moves once that run has ended (moving it then would lose what it writes after).
 */
export async function moveRunLogIn(
  sql: Sql,
  dir: string,
  key: string,
  warn?: ((line: string) => void) | undefined,
  o: { held?: boolean } = {},
): Promise<number> {
  const file = logFile(dir, key);
  if (readIfThere(file) === undefined) return 0;
  let release: (() => Promise<void>) | undefined;
  if (!o.held) {
    const lock = runLockFile(dir, key);
    try {
      release = await lockRun(lock, MOVE_STALE_MS);
    } catch (error) {
      if (error instanceof CliError && error.code === 'RUN_IN_PROGRESS') {
        warn?.(`note: the run log ${file} is being written by a running schedctl: it moves in once that run has ended`);
        return 0;
      }
      throw error instanceof CliError ? error : new StateWriteError(lock, error);
    }
  }
  try {
    return await moveHeld(sql, dir, key, file, warn);
  } finally {
    await release?.().catch(() => {});
  }
}

/** How long a run's lock may stand still before a move takes it over (as a run's open does). */
const MOVE_STALE_MS = 30_000;

async function moveHeld(
  sql: Sql,
  dir: string,
  key: string,
  file: string,
  warn: ((line: string) => void) | undefined,
): Promise<number> {
  // Read again under the lock: a run that ended a moment ago may have appended.
  const text = readIfThere(file);
  if (text === undefined) return 0;
  const records = parseRunLines(text, file, warn);
  const moved = await sql.transaction(async (tx) => {
    if (await get(tx, 'SELECT 1 AS one FROM schedctl_run_records WHERE log_key = ? LIMIT 1', [key])) return 0;
    for (const r of records) await tx.run(INSERT, [key, JSON.stringify(r), atMs(r)]);
    return records.length;
  });
  const aside = join(dir, RUNS_ASIDE);
  try {
    mkdirSync(aside, { recursive: true, mode: 0o700 });
    renameSync(file, join(aside, `${key}.jsonl`));
  } catch {
    // The records are in the table: a file left in place is put aside by the next read (not moved twice).
    return moved;
  }
  warn?.(`note: the run log ${file} moved into ${sql.where} (${moved} record(s)); the file is kept in ${aside}`);
  return moved;
}

/** Moves every log of `runs/` a schedctl from before kept into the table; resolves to how many records. */
export async function moveRunLogsIn(
  sql: Sql,
  dir: string,
  warn?: ((line: string) => void) | undefined,
): Promise<number> {
  let names: string[];
  try {
    names = readdirSync(join(dir, 'runs'));
  } catch {
    return 0;
  }
  let moved = 0;
  for (const name of names) {
    const key = RUN_LOG_FILE.exec(name)?.[1];
    if (key) moved += await moveRunLogIn(sql, dir, key, warn);
  }
  return moved;
}

/** This machine's run logs: each log's records in the order they were appended, the logs by their first. */
export async function localRunRecords(sql: Sql): Promise<Map<string, RunRecord[]>> {
  const rows = await sql.all<{ log_key: string; record: string }>(
    'SELECT log_key, record FROM schedctl_run_records ORDER BY seq',
  );
  const logs = new Map<string, RunRecord[]>();
  for (const { log_key, record } of rows) {
    const r = parseRecord(record);
    if (!r) continue;
    const log = logs.get(log_key) ?? [];
    log.push(r);
    logs.set(log_key, log);
  }
  return logs;
}

/** How many run records this machine keeps. */
export async function countRunRecords(sql: Sql): Promise<number> {
  const row = await get<{ n: number }>(sql, 'SELECT count(*) AS n FROM schedctl_run_records');
  return Number(row?.n);
}
