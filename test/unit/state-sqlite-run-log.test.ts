/**
 * This machine's bulk run logs in its SQLite ledger (src/state/sqlite/run-log.ts), on a real
 * file: each append one committed row, read back folded in the order appended, one run of a log
 * at a time (naming the holder), and a log of a schedctl from before (`runs/<key>.jsonl`) moved
 * in once, counted, its torn last line dropped, the file put aside.
 */
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { lockRun, runLockFile, type RunLogStore } from '../../src/bulk/run-log.js';
import { CliError } from '../../src/errors.js';
import { StateWriteError } from '../../src/state/errors.js';
import { releaseLedger, sqliteLedger, type SqliteLedger } from '../../src/state/sqlite/engine.js';
import {
  countRunRecords,
  localRunRecords,
  moveRunLogIn,
  moveRunLogsIn,
  RUNS_ASIDE,
  sqliteRunLogs,
} from '../../src/state/sqlite/run-log.js';
import { runRecordRows } from '../helpers/ledger-db.js';

const KEY = 'a'.repeat(64);
const OTHER = 'b'.repeat(64);
const id = { key: KEY, workspace: 'default@https://api.example.com' };
const AT = '2026-11-23T09:00:00.000Z';
const clock = () => new Date(AT);

const ledgers: SqliteLedger[] = [];
function setup(dir = mkdtempSync(join(tmpdir(), 'sqlite-runlog-'))) {
  const sql = sqliteLedger(dir, { busyMs: 2_000, hasDocuments: () => false, importDocuments: undefined });
  ledgers.push(sql);
  const warnings: string[] = [];
  const logs: RunLogStore = sqliteRunLogs({ dir, sql, warn: (w) => warnings.push(w) });
  return { dir, sql, logs, warnings };
}
afterEach(() => {
  for (const l of ledgers.splice(0)) releaseLedger(l);
});

/** A log as a schedctl from before wrote it: `runs/<key>.jsonl`. */
function oldLog(dir: string, key: string, text: string): string {
  mkdirSync(join(dir, 'runs'), { recursive: true });
  const path = join(dir, 'runs', `${key}.jsonl`);
  writeFileSync(path, text);
  return path;
}
const line = (r: object) => `${JSON.stringify(r)}\n`;

describe('sqliteRunLogs', () => {
  it('appends each record as one committed row of schedctl_run_records, in order, and reads each row folded', async () => {
    const { dir, logs, sql } = setup();
    const log = await logs.open(id, { now: clock });
    expect(log.path).toBe(`${sql.where} (run log ${'a'.repeat(12)})`);
    expect(await log.append({ row: 2, status: 'started', executionId: 'e-1' })).toEqual({
      row: 2,
      status: 'started',
      executionId: 'e-1',
      at: AT,
    });
    // Committed when it resolves: another connection (the test's, read-only) sees it at once.
    expect(runRecordRows(dir, KEY)).toEqual([
      { key: KEY, row: 2, status: 'started', executionId: 'e-1', at: AT, at_ms: Date.parse(AT) },
    ]);
    await log.append({ row: 3, status: 'started' });
    await log.append({ row: 2, status: 'sent', reservationId: 'r-1' });
    await log.append({ row: 4, status: 'booked', meetingId: 'm-4', at: '2026-11-23T10:00:00.000Z' });
    await log.close();
    await log.close(); // twice is once
    await expect(log.append({ row: 5, status: 'started' })).rejects.toThrow(/is closed/);
    expect(runRecordRows(dir, KEY).map((r) => [r.row, r.status, r.at_ms])).toEqual([
      [2, 'started', Date.parse(AT)],
      [3, 'started', Date.parse(AT)],
      [2, 'sent', Date.parse(AT)],
      [4, 'booked', Date.parse('2026-11-23T10:00:00.000Z')],
    ]);
    const rows = await logs.read(id);
    expect([...rows.keys()]).toEqual([2, 3, 4]);
    expect(rows.get(2)).toEqual({ row: 2, status: 'sent', executionId: 'e-1', reservationId: 'r-1', at: AT });
    expect(rows.get(4)?.meetingId).toBe('m-4');
    // Another log's records are its own.
    expect((await logs.read({ ...id, key: OTHER })).size).toBe(0);
    expect(await countRunRecords(sql)).toBe(4);
  });

  it('reads an empty log before any ledger file exists, creating none', async () => {
    const { dir, logs, sql } = setup();
    expect((await logs.read(id)).size).toBe(0);
    expect(existsSync(join(dir, 'ledger.db'))).toBe(false);
    expect(await countRunRecords(sql)).toBe(0);
  });

  it('skips a row of the table that is no record (never failing the run)', async () => {
    const { logs, sql } = setup();
    await sql.run('INSERT INTO schedctl_run_records (log_key, record, at_ms) VALUES (?, ?, 0)', [KEY, 'not json']);
    await sql.run('INSERT INTO schedctl_run_records (log_key, record, at_ms) VALUES (?, ?, 0)', [
      KEY,
      JSON.stringify({ row: 2, status: 'booked', at: AT }),
    ]);
    expect([...(await logs.read(id)).keys()]).toEqual([2]);
    expect([...(await localRunRecords(sql)).get(KEY)!]).toEqual([{ row: 2, status: 'booked', at: AT }]);
  });

  it('lets one run hold a log: a second is refused (RUN_IN_PROGRESS, exit 5) naming the holder, then free once closed', async () => {
    const { dir, logs } = setup();
    const first = await logs.open(id, { now: clock });
    const owner = JSON.parse(readFileSync(join(dir, 'runs', `${KEY}.jsonl.owner`), 'utf8')) as object;
    expect(owner).toEqual({ pid: process.pid, host: hostname(), since: AT });
    expect(statSync(join(dir, 'runs')).mode & 0o777).toBe(0o700);
    const error = await logs.open(id).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CliError);
    expect(error).toMatchObject({ code: 'RUN_IN_PROGRESS', exitCode: 5 });
    expect((error as CliError).message).toBe(
      `another schedctl run is working through this input: pid ${process.pid} on ${hostname()}, since ${AT}; nothing was sent`,
    );
    expect((error as CliError).hint).toMatch(/within 30 s$/);
    // Another log is not held.
    const other = await logs.open({ ...id, key: OTHER });
    await other.close();
    await first.close();
    expect(existsSync(join(dir, 'runs', `${KEY}.jsonl.owner`))).toBe(false);
    const again = await logs.open(id);
    // Closing the first run's log again releases nothing of the run holding it now.
    await first.close();
    expect(existsSync(join(dir, 'runs', `${KEY}.jsonl.owner`))).toBe(true);
    await expect(logs.open(id)).rejects.toMatchObject({ code: 'RUN_IN_PROGRESS' });
    await again.close();
  });

  it('refuses as STATE_WRITE, before any row, when the config directory cannot hold the lock', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'sqlite-runlog-'));
    writeFileSync(join(parent, 'file'), '');
    const { logs } = setup(join(parent, 'file'));
    await expect(logs.open(id)).rejects.toBeInstanceOf(StateWriteError);
  });
});

describe('a run log of a schedctl from before (runs/<key>.jsonl)', () => {
  const records = [
    { row: 2, status: 'started', executionId: 'e-2', at: AT },
    { row: 2, status: 'booked', meetingId: 'm-2', at: AT },
    { row: 3, status: 'started', at: AT },
    { row: 3, status: 'sent', reservationId: 'r-3', at: 'not a time' },
  ];

  it('is moved into the table when first opened: every record in order, counted, the file put aside and named once', async () => {
    const { dir, logs, sql, warnings } = setup();
    const path = oldLog(dir, KEY, records.map(line).join(''));
    const log = await logs.open(id, { now: clock });
    expect(existsSync(path)).toBe(false);
    const aside = join(dir, 'runs-before-sqlite', `${KEY}.jsonl`);
    expect(RUNS_ASIDE).toBe('runs-before-sqlite');
    expect(readFileSync(aside, 'utf8')).toBe(records.map(line).join(''));
    expect(warnings).toEqual([
      `note: the run log ${path} moved into ${sql.where} (4 record(s)); the file is kept in ${join(dir, RUNS_ASIDE)}`,
    ]);
    expect(runRecordRows(dir, KEY).map(({ key: _k, at_ms, ...r }) => [r, at_ms])).toEqual(
      records.map((r) => [r, r.at === AT ? Date.parse(AT) : 0]),
    );
    await log.append({ row: 4, status: 'started' });
    await log.close();
    const rows = await logs.read(id);
    expect(rows.get(3)).toEqual({ row: 3, status: 'sent', reservationId: 'r-3', at: 'not a time' });
    expect(rows.get(2)?.status).toBe('booked');
    expect(rows.get(4)?.status).toBe('started');
    // Moved once: reading again moves nothing, says nothing.
    expect(warnings).toHaveLength(1);
    expect(runRecordRows(dir, KEY)).toHaveLength(5);
  });

  it('is moved when first read, its torn last line dropped with a warning and an unreadable line skipped', async () => {
    const { dir, logs, sql } = setup();
    const path = oldLog(dir, KEY, `${line(records[0]!)}not json\n${line(records[2]!)}{"row":3,"status":"se`);
    const seen: string[] = [];
    const rows = await logs.read(id, { onWarning: (w) => seen.push(w) });
    expect(rows.get(2)).toMatchObject({ status: 'started', executionId: 'e-2' });
    expect(rows.get(3)).toMatchObject({ status: 'started' });
    expect(seen).toEqual([
      `run log ${path}: ignored an unreadable record on line 2`,
      `run log ${path}: ignored an incomplete last record (line 4), left by an interrupted run`,
      `note: the run log ${path} moved into ${sql.where} (2 record(s)); the file is kept in ${join(dir, RUNS_ASIDE)}`,
    ]);
    expect(runRecordRows(dir).map((r) => [r.key, r.row, r.status])).toEqual([
      [KEY, 2, 'started'],
      [KEY, 3, 'started'],
    ]);
  });

  it('is only put aside when its records are in the table already (a move that could not put the file aside)', async () => {
    const { dir, logs, sql, warnings } = setup();
    oldLog(dir, KEY, records.map(line).join(''));
    expect(await moveRunLogIn(sql, dir, KEY)).toBe(4);
    const path = oldLog(dir, KEY, records.map(line).join(''));
    expect((await logs.read(id)).size).toBe(2);
    expect(existsSync(path)).toBe(false);
    expect(warnings).toEqual([expect.stringContaining('(0 record(s))')]);
    expect(runRecordRows(dir, KEY)).toHaveLength(4);
  });

  it('stays in place, its records in the table, when it cannot be put aside; then moves nothing twice', async () => {
    const { dir, sql } = setup();
    const path = oldLog(dir, KEY, records.map(line).join(''));
    writeFileSync(join(dir, RUNS_ASIDE), 'a file where the directory would be');
    const warnings: string[] = [];
    expect(await moveRunLogIn(sql, dir, KEY, (w) => warnings.push(w))).toBe(4);
    expect(existsSync(path)).toBe(true);
    expect(warnings).toEqual([]);
    expect(await moveRunLogIn(sql, dir, KEY)).toBe(0);
    expect(runRecordRows(dir, KEY)).toHaveLength(4);
  });

  it('moves every log of runs/ at once (state push), leaving other files there alone', async () => {
    const { dir, sql } = setup();
    oldLog(dir, KEY, records.map(line).join(''));
    oldLog(dir, OTHER, line(records[2]!));
    writeFileSync(join(dir, 'runs', 'stdin-0123456789abcdef.input'), 'email\n');
    expect(await moveRunLogsIn(sql, dir)).toBe(5);
    expect(existsSync(join(dir, 'runs', 'stdin-0123456789abcdef.input'))).toBe(true);
    const logs = await localRunRecords(sql);
    expect([...logs.keys()]).toEqual([KEY, OTHER]);
    expect(logs.get(KEY)).toEqual(records);
    expect(logs.get(OTHER)).toEqual([records[2]]);
    expect(await moveRunLogsIn(sql, dir)).toBe(0);
    expect(await moveRunLogsIn(sql, join(dir, 'none'))).toBe(0);
    expect(await countRunRecords(sql)).toBe(5);
  });

  it('leaves a log a running schedctl from before still writes where it is, reads it there, and moves it once that run ends', async () => {
    const { dir, logs, sql } = setup();
    const path = oldLog(dir, KEY, records.map(line).join(''));
    // That run holds the log's lock (this process stands in for it: its pid is alive).
    const release = await lockRun(runLockFile(dir, KEY), 30_000);
    const seen: string[] = [];
    const before = await logs.read(id, { onWarning: (w) => seen.push(w) });
    expect([...before.keys()].sort()).toEqual([2, 3]);
    expect(existsSync(path)).toBe(true);
    expect(seen).toEqual([
      `note: the run log ${path} is being written by a running schedctl: it moves in once that run has ended`,
    ]);
    expect(await moveRunLogsIn(sql, dir)).toBe(0);
    expect(runRecordRows(dir, KEY)).toEqual([]);
    // It goes on appending: nothing it writes is lost.
    appendFileSync(path, line({ row: 4, status: 'started', at: AT }));
    expect((await logs.read(id)).get(4)?.status).toBe('started');
    await release();
    const after = await logs.read(id);
    expect(after.get(4)?.status).toBe('started');
    expect(existsSync(path)).toBe(false);
    expect(runRecordRows(dir, KEY)).toHaveLength(records.length + 1);
  });

  it('refuses (naming the file) a log it cannot read, moving nothing, and leaves the run free', async () => {
    const { dir, sql, logs } = setup();
    mkdirSync(join(dir, 'runs', `${KEY}.jsonl`), { recursive: true });
    await expect(moveRunLogIn(sql, dir, KEY)).rejects.toBeInstanceOf(StateWriteError);
    await expect(logs.open(id)).rejects.toBeInstanceOf(StateWriteError);
    rmSync(join(dir, 'runs', `${KEY}.jsonl`), { recursive: true });
    const log = await logs.open(id);
    await log.close();
  });
});
