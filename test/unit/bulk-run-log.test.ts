import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openRunLog, readRunLog, resumeActionFor, runLogPath } from '../../src/bulk/run-log.js';
import { CliError } from '../../src/errors.js';

const hash = 'a'.repeat(64);
const tempDir = () => mkdtempSync(join(tmpdir(), 'schedctl-runlog-'));
const clock = () => new Date('2026-11-23T09:00:00Z');

describe('run log', () => {
  it('lives in <configDir>/runs (0700) as <hash>.jsonl (0600), one JSON line per record', async () => {
    const dir = tempDir();
    const path = runLogPath(dir, hash);
    expect(path).toBe(join(dir, 'runs', `${hash}.jsonl`));
    const log = await openRunLog(path, { now: clock });
    await log.append({ row: 2, status: 'started', executionId: 'e-1' });
    await log.append({ row: 2, status: 'sent', reservationId: 'r-1' });
    await log.close();
    expect(statSync(join(dir, 'runs')).mode & 0o777).toBe(0o700);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readFileSync(path, 'utf8')).toBe(
      '{"row":2,"status":"started","executionId":"e-1","at":"2026-11-23T09:00:00.000Z"}\n{"row":2,"status":"sent","reservationId":"r-1","at":"2026-11-23T09:00:00.000Z"}\n',
    );
  });

  it('gives each row its latest record, with the ids recorded earlier carried forward', async () => {
    const path = runLogPath(tempDir(), hash);
    const log = await openRunLog(path, { now: clock });
    await log.append({ row: 2, status: 'started', executionId: 'e-1' });
    await log.append({ row: 3, status: 'started' });
    await log.append({ row: 2, status: 'sent', reservationId: 'r-1' });
    await log.append({ row: 4, status: 'started' });
    await log.append({ row: 4, status: 'sent' });
    await log.append({ row: 4, status: 'booked', meetingId: 'm-4' });
    await log.close();
    const rows = readRunLog(path);
    expect(rows.get(2)).toEqual({
      row: 2,
      status: 'sent',
      executionId: 'e-1',
      reservationId: 'r-1',
      at: '2026-11-23T09:00:00.000Z',
    });
    expect(resumeActionFor(rows.get(2))).toBe('resolve');
    expect(resumeActionFor(rows.get(3))).toBe('send');
    expect(resumeActionFor(rows.get(4))).toBe('skip');
    expect(resumeActionFor(rows.get(5))).toBe('new');
  });

  it('skips a torn last line (a crash mid-write) and unreadable lines with a warning, never failing', () => {
    const path = runLogPath(tempDir(), hash);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(
      path,
      '{"row":2,"status":"booked","at":"x","meetingId":"m"}\nnot json\n{"row":"3","status":"booked","at":"x"}\n{"row":4,"status":"sent","at":"x"}\n',
    );
    appendFileSync(path, '{"row":4,"status":"boo');
    const warnings: string[] = [];
    const rows = readRunLog(path, { onWarning: (w) => warnings.push(w) });
    expect([...rows.keys()]).toEqual([2, 4]);
    expect(rows.get(4)?.status).toBe('sent');
    expect(warnings).toEqual([
      expect.stringContaining('ignored an unreadable record on line 2'),
      expect.stringContaining('ignored an unreadable record on line 3'),
      expect.stringContaining('ignored an incomplete last record (line 5), left by an interrupted run'),
    ]);
  });

  it('reads a missing log as empty', () => {
    expect(readRunLog(join(tempDir(), 'runs', 'none.jsonl')).size).toBe(0);
  });

  it('refuses a second run on the same input while the first holds the log', async () => {
    const path = runLogPath(tempDir(), hash);
    const first = await openRunLog(path);
    const error = await openRunLog(path).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).code).toBe('RUN_IN_PROGRESS');
    expect((error as CliError).exitCode).toBe(5);
    await first.close();
    const again = await openRunLog(path);
    await again.close();
  });

  it('keys the log by scope too, so the same file against another workspace starts afresh', () => {
    const dir = tempDir();
    expect(runLogPath(dir, hash, 'route:prod@https://api.example')).not.toBe(
      runLogPath(dir, hash, 'route:sandbox@http://127.0.0.1:4010'),
    );
    expect(runLogPath(dir, hash, 'route:prod@https://api.example')).toMatch(/runs\/[0-9a-f]{64}\.jsonl$/);
  });
});
