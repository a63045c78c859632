/**
 * Resumable bulk runs: an append-only log of records per input, keyed by the input's content
 * hash (and scope). On this machine the records are rows of the SQLite ledger's
 * `schedctl_run_records` (state/sqlite/run-log.ts); with a team state (PostgreSQL), the same
 * table there (state/postgres/run-log.ts), so another machine resumes the run. `RunLogStore` is
 * what both stores offer (LedgerBackend.runLogs()). A schedctl from before kept them in
 * `<configDir>/runs/<key>.jsonl` (JSON Lines): such a file is moved into the table the first time
 * its log is read or opened, by the rules of parseRunLines (a torn last line, left by a crash
 * mid-write, is dropped with a warning; so is an unreadable line elsewhere).
 *
 * Each record is committed before the request it announces is sent. Per row the records go
 * `started` (about to send its first request that changes something) → `sent` (the request
 * whose response may be lost: the booking or the move) → a final status (results.ts). On resume:
 * - final: skip the row (its earlier result stands);
 * - `started` without `sent`: nothing irreversible is pending: send again (reusing the
 *   executionId / reservationId it recorded, so a fired trigger is not fired twice);
 * - `sent` without a final record: the response was lost: resolve by the spec's lost-response
 *   rules (retry with the same workflowExecutionId; CONFLICT / RESERVATION_USED /
 *   RESERVATION_EXPIRED mean the meeting exists), never a blind second booking.
 *
 * While a run holds the log, a second process on the same input (and scope) is refused, so
 * two parallel runs of one file cannot book each row twice.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { CliError, EXIT } from '../errors.js';
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
 * The log's key: the input's content hash, with the scope (give it so the same file run against
 * another workspace or with another command starts afresh) (`command:workspace`, the workspace
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

/** Where run logs are kept: this machine's SQLite ledger, or the team database. */
export interface RunLogStore {
  /** Each row's latest record (foldRunRecords over the log's records in order). */
  read(id: RunLogId, opts?: { onWarning?: (message: string) => void }): Promise<Map<number, RunRecord>>;
  /** Opens the log for appending, as the only run of it (RUN_IN_PROGRESS, exit 5, otherwise). */
  open(id: RunLogId, opts?: OpenRunLogOptions): Promise<RunLog>;
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
  /** Where the log is: the database (for messages). */
  readonly path: string;
  /**
   * Appends one record (`at` defaults to now); durable when it resolves. A team state that
   * fails refuses a `started` record (the row is not sent: STATE_UNAVAILABLE) and keeps any
   * other on this machine (the row's request was sent: its record must not be lost).
   */
  append(record: RunRecordInput): Promise<RunRecord>;
  /** Releases the log for other processes. */
  close(): Promise<void>;
}

export interface OpenRunLogOptions {
  now?: () => Date;
  /** A lock left by a killed process is taken over after this long (default 30 s). */
  staleMs?: number;
}

/** Where this machine keeps a log's lock (the name a schedctl from before used, so the two exclude each other). */
export const runLockFile = (configDir: string, key: string): string => join(configDir, 'runs', `${key}.jsonl`);

/** Who holds a run's lock on this machine (written beside it: `<lock file>.owner`). */
interface RunLockOwner {
  pid?: unknown;
  host?: unknown;
  since?: unknown;
}

/**
 * Takes the run lock `path` (proper-lockfile: `<path>.lock`, refreshed while held, stale after
 * `staleMs`) as the only run of its input on this machine, or refuses (RUN_IN_PROGRESS, exit 5)
 * naming the run holding it. Resolves to its release.
 */
export async function lockRun(
  path: string,
  staleMs: number,
  now: () => Date = () => new Date(),
): Promise<() => Promise<void>> {
  const mod = await import('proper-lockfile');
  // A CommonJS module: its functions may sit on the namespace or on its default export.
  const { lock } = ((mod as { default?: typeof mod }).default ?? mod) as typeof mod;
  const owner = `${path}.owner`;
  // Held for the whole run, refreshed by proper-lockfile; a compromise (the refresh failed
  // for longer than staleMs) is not fatal: each record is its own committed row either way.
  const take = () => lock(path, { realpath: false, stale: staleMs, retries: 0, onCompromised: () => {} });
  let release: () => Promise<void>;
  try {
    release = await take();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ELOCKED') throw error;
    // A run killed a moment ago (Ctrl-C twice, SIGKILL) left its lock: when its process is gone
    // from this machine, take the lock over at once instead of making the re-run wait it out.
    const holder = readOwner(owner);
    if (!ownerIsGone(holder)) {
      throw new CliError(
        'RUN_IN_PROGRESS',
        `another schedctl run is working through this input${describeOwner(holder)}; nothing was sent`,
        EXIT.conflict,
        {
          hint: `wait for it to finish; if no other run is active, the lock of an interrupted one (${path}.lock) expires within ${Math.round(staleMs / 1000)} s`,
        },
      );
    }
    rmSync(`${path}.lock`, { recursive: true, force: true });
    release = await take();
  }
  writeFileSync(owner, JSON.stringify({ pid: process.pid, host: hostname(), since: now().toISOString() }), {
    mode: 0o600,
  });
  return async () => {
    rmSync(owner, { force: true });
    await release();
  };
}

function readOwner(owner: string): RunLockOwner | undefined {
  try {
    const value: unknown = JSON.parse(readFileSync(owner, 'utf8'));
    return value !== null && typeof value === 'object' ? (value as RunLockOwner) : undefined;
  } catch {
    return undefined;
  }
}

/** `: pid 12, host h, since …` (what the holder wrote; a pid only, from a schedctl from before). */
function describeOwner(o: RunLockOwner | undefined): string {
  if (!o || typeof o.pid !== 'number') return '';
  const host = typeof o.host === 'string' ? ` on ${o.host}` : '';
  const since = typeof o.since === 'string' ? `, since ${o.since}` : '';
  return `: pid ${o.pid}${host}${since}`;
}

/** True when the lock's owner was a process on this machine that no longer runs. */
function ownerIsGone(o: RunLockOwner | undefined): boolean {
  if (!o || typeof o.pid !== 'number' || o.host !== hostname()) return false;
  try {
    process.kill(o.pid, 0);
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
