/**
 * Resumable bulk runs: an append-only JSON Lines log per input,
 * `<configDir>/runs/<key>.jsonl` (directory 0700, file 0600).
 *
 * Each record is one `writeSync` of one line on a descriptor opened with O_APPEND, synced to
 * disk, so a crash leaves at most a torn last line; the reader skips such a line with a
 * warning, never failing. Per row the records go `started` (about to send its first request
 * that changes something) → `sent` (the request whose response may be lost: the booking or
 * the move) → a final status (results.ts). On resume:
 * - final: skip the row (its earlier result stands);
 * - `started` without `sent`: nothing irreversible is pending: send again (reusing the
 *   executionId / reservationId it recorded, so a fired trigger is not fired twice);
 * - `sent` without a final record: the response was lost: resolve by the spec's lost-response
 *   rules (retry with the same workflowExecutionId; CONFLICT / RESERVATION_USED /
 *   RESERVATION_EXPIRED mean the meeting exists), never a blind second booking.
 *
 * While a run holds the log, a second process on the same input (and scope) is refused, so
 * two parallel runs of one file cannot book each row twice.
 *
 * With a team state (PostgreSQL) the same records live in the database under the same key
 * (state/postgres/run-log.ts), so another machine resumes the run; `RunLogStore` is what both
 * stores offer (LedgerBackend.runLogs()).
 */
import { createHash } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  fdatasyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';
import { CliError, EXIT } from '../errors.js';
import { StateWriteError } from '../state/errors.js';
import { ROW_STATUSES, type RowStatus } from './results.js';

export type RunStatus = 'started' | 'sent' | RowStatus;

export interface RunRecord {
  row: number;
  status: RunStatus;
  /** ISO 8601. */
  at: string;
  meetingId?: string;
  code?: string;
  executionId?: string;
  reservationId?: string;
}

export type RunRecordInput = Omit<RunRecord, 'at'> & { at?: string };

/** What a resumed run does with a row, from its latest record. */
export type ResumeAction = 'new' | 'send' | 'resolve' | 'skip';

export function resumeActionFor(latest: RunRecord | undefined): ResumeAction {
  if (!latest) return 'new';
  if (latest.status === 'started') return 'send';
  if (latest.status === 'sent') return 'resolve';
  return 'skip';
}

/**
 * The log of one input. Give `scope` (the command and target, e.g. `route:prod@https://…`) so
 * the same file run against another workspace or with another command starts afresh.
 */
export function runLogPath(configDir: string, contentHash: string, scope?: string): string {
  return runLogFile(configDir, runLogKey(contentHash, scope));
}

/** Where this machine keeps the log of a key. */
const runLogFile = (configDir: string, key: string): string => join(configDir, 'runs', `${key}.jsonl`);

/**
 * The log's key: the input's content hash, with the scope (`command:workspace`, the workspace
 * being the base URL and the key's fingerprint: the same on every machine) hashed in.
 */
export function runLogKey(contentHash: string, scope?: string): string {
  return scope === undefined ? contentHash : createHash('sha256').update(`${contentHash}\n${scope}`).digest('hex');
}

/** A log's file name is its key: `<64 hex>.jsonl`. */
export const RUN_LOG_FILE = /^([0-9a-f]{64})\.jsonl$/;

/** The run logs in `dir` (`<key>.jsonl`), each with its readable records. */
export function runLogFiles(dir: string): { key: string; path: string; records: RunRecord[] }[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names.flatMap((f) => {
    const key = RUN_LOG_FILE.exec(f)?.[1];
    if (!key) return [];
    const path = join(dir, f);
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch {
      return [];
    }
    return [{ key, path, records: parseRunLines(text, path) }];
  });
}

/** One run's log in a store: its key, and the workspace it runs against (for lock holders' listing). */
export interface RunLogId {
  key: string;
  workspace: string;
}

/** Where run logs are kept: this machine's files, or the team database. */
export interface RunLogStore {
  /** Each row's latest record (readRunLog's rules). */
  read(id: RunLogId, opts?: { onWarning?: (message: string) => void }): Promise<Map<number, RunRecord>>;
  /** Opens the log for appending, as the only run of it (RUN_IN_PROGRESS, exit 5, otherwise). */
  open(id: RunLogId, opts?: OpenRunLogOptions): Promise<RunLog>;
}

/** The default store: `<configDir>/runs/<key>.jsonl`, exactly as before team states. */
export function localRunLogs(configDir: string): RunLogStore {
  return {
    read: async (id, opts) => readRunLog(runLogFile(configDir, id.key), opts),
    open: (id, opts) => openRunLog(runLogFile(configDir, id.key), opts),
  };
}

/**
 * Each row's latest record, with the ids recorded earlier for the row carried forward (a
 * `sent` record need not repeat the executionId its `started` record holds).
 * A missing file is an empty log. Unreadable lines are skipped with `onWarning`.
 */
export function readRunLog(path: string, opts: { onWarning?: (message: string) => void } = {}): Map<number, RunRecord> {
  const rows = new Map<number, RunRecord>();
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return rows;
    throw error;
  }
  return foldRunRecords(parseRunLines(text, path, opts.onWarning), rows);
}

/** The records of a log's text (JSON Lines); unreadable lines are skipped with `onWarning`. */
export function parseRunLines(text: string, path: string, onWarning?: (message: string) => void): RunRecord[] {
  const out: RunRecord[] = [];
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    const record = parseRecord(line);
    if (!record) {
      const torn = i === lines.length - 1;
      onWarning?.(
        torn
          ? `run log ${path}: ignored an incomplete last record (line ${i + 1}), left by an interrupted run`
          : `run log ${path}: ignored an unreadable record on line ${i + 1}`,
      );
      return;
    }
    out.push(record);
  });
  return out;
}

/** Each row's latest record, in the order given, with earlier ids carried forward. */
export function foldRunRecords(
  records: Iterable<RunRecord>,
  rows: Map<number, RunRecord> = new Map(),
): Map<number, RunRecord> {
  for (const record of records) {
    const previous = rows.get(record.row);
    rows.set(record.row, previous ? { ...carried(previous), ...record } : record);
  }
  return rows;
}

export interface RunLog {
  /** Where the log is: its file, or the database (for messages). */
  readonly path: string;
  /**
   * Appends one record (`at` defaults to now); durable when it resolves. A team state that
   * fails refuses a `started` record (the row is not sent: STATE_UNAVAILABLE) and keeps any
   * other on this machine (the row's request was sent: its record must not be lost).
   */
  append(record: RunRecordInput): Promise<RunRecord>;
  /** Closes the file and releases the log for other processes. */
  close(): Promise<void>;
}

export interface OpenRunLogOptions {
  now?: () => Date;
  /** A lock left by a killed process is taken over after this long (default 30 s). */
  staleMs?: number;
}

export async function openRunLog(path: string, opts: OpenRunLogOptions = {}): Promise<RunLog> {
  const now = opts.now ?? (() => new Date());
  const dir = dirname(path);
  // A directory that cannot take the log is said as the state store says it (STATE_WRITE, what
  // to do), before any row is sent; never as an unexpected failure.
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chmodSync(dir, 0o700);
  } catch (error) {
    throw new StateWriteError(dir, error);
  }
  const release = await lockRun(path, opts.staleMs ?? 30_000).catch((error: unknown) => {
    throw error instanceof CliError ? error : new StateWriteError(path, error);
  });
  let fd: number;
  try {
    fd = openSync(path, 'a', 0o600);
  } catch (error) {
    await release().catch(() => {});
    throw new StateWriteError(path, error);
  }
  let closed = false;
  return {
    path,
    // Synchronous inside: the line is on disk before the promise is even returned.
    async append(input) {
      if (closed) throw new Error(`run log ${path} is closed`);
      const record: RunRecord = { ...input, at: input.at ?? now().toISOString() };
      // One write of one whole line: with O_APPEND it lands at the end in one piece.
      writeSync(fd, `${JSON.stringify(record)}\n`);
      fdatasyncSync(fd);
      return record;
    },
    async close() {
      if (closed) return;
      closed = true;
      closeSync(fd);
      await release().catch(() => {});
    },
  };
}

async function lockRun(path: string, staleMs: number): Promise<() => Promise<void>> {
  const mod = await import('proper-lockfile');
  // A CommonJS module: its functions may sit on the namespace or on its default export.
  const { lock } = ((mod as { default?: typeof mod }).default ?? mod) as typeof mod;
  const owner = `${path}.owner`;
  // Held for the whole run, refreshed by proper-lockfile; a compromise (the refresh failed
  // for longer than staleMs) is not fatal: the O_APPEND writes stay whole either way.
  const take = () => lock(path, { realpath: false, stale: staleMs, retries: 0, onCompromised: () => {} });
  let release: () => Promise<void>;
  try {
    release = await take();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ELOCKED') throw error;
    // A run killed a moment ago (Ctrl-C twice, SIGKILL) left its lock: when its process is gone
    // from this machine, take the lock over at once instead of making the re-run wait it out.
    if (!ownerIsGone(owner)) {
      throw new CliError(
        'RUN_IN_PROGRESS',
        `another schedctl run is working through this input (its run log ${path} is locked)`,
        EXIT.conflict,
        {
          hint: `wait for it to finish; if no other run is active, the lock of an interrupted one expires within ${Math.round(staleMs / 1000)} s`,
        },
      );
    }
    rmSync(`${path}.lock`, { recursive: true, force: true });
    release = await take();
  }
  writeFileSync(owner, JSON.stringify({ pid: process.pid, host: hostname() }), { mode: 0o600 });
  return async () => {
    rmSync(owner, { force: true });
    await release();
  };
}

/** True when the lock's owner was a process on this machine that no longer runs. */
function ownerIsGone(owner: string): boolean {
  try {
    const { pid, host } = JSON.parse(readFileSync(owner, 'utf8')) as { pid?: unknown; host?: unknown };
    if (typeof pid !== 'number' || host !== hostname()) return false;
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

function carried(r: RunRecord): Partial<RunRecord> {
  const out: Partial<RunRecord> = {};
  if (r.executionId !== undefined) out.executionId = r.executionId;
  if (r.reservationId !== undefined) out.reservationId = r.reservationId;
  if (r.meetingId !== undefined) out.meetingId = r.meetingId;
  return out;
}

const STATUSES: readonly string[] = ['started', 'sent', ...ROW_STATUSES];

export function parseRecord(line: string): RunRecord | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (value === null || typeof value !== 'object') return undefined;
  const r = value as Record<string, unknown>;
  if (
    !Number.isInteger(r.row) ||
    typeof r.status !== 'string' ||
    !STATUSES.includes(r.status) ||
    typeof r.at !== 'string'
  )
    return undefined;
  for (const key of ['meetingId', 'code', 'executionId', 'reservationId'] as const) {
    if (r[key] !== undefined && typeof r[key] !== 'string') return undefined;
  }
  return r as unknown as RunRecord;
}
