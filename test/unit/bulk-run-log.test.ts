import { describe, expect, it } from 'vitest';
import { foldRunRecords, parseRunLines, resumeActionFor, runLogKey, type RunRecord } from '../../src/bulk/run-log.js';

const hash = 'a'.repeat(64);
const at = '2026-11-23T09:00:00.000Z';

// The store of the records (the SQLite ledger's table, the lock) is proved in
// state-sqlite-run-log.test.ts; these are the rules every store applies.
describe('run log', () => {
  it('gives each row its latest record, with the ids recorded earlier carried forward', () => {
    const records: RunRecord[] = [
      { row: 2, status: 'started', executionId: 'e-1', at },
      { row: 3, status: 'started', at },
      { row: 2, status: 'sent', reservationId: 'r-1', at },
      { row: 4, status: 'started', at },
      { row: 4, status: 'sent', at },
      { row: 4, status: 'booked', meetingId: 'm-4', at },
    ];
    const rows = foldRunRecords(records);
    expect(rows.get(2)).toEqual({ row: 2, status: 'sent', executionId: 'e-1', reservationId: 'r-1', at });
    expect(resumeActionFor(rows.get(2))).toBe('resolve');
    expect(resumeActionFor(rows.get(3))).toBe('send');
    expect(resumeActionFor(rows.get(4))).toBe('skip');
    expect(resumeActionFor(rows.get(5))).toBe('new');
  });

  it('reads a JSON Lines log of a schedctl from before: a torn last line (a crash mid-write) and unreadable lines skipped with a warning, never failing', () => {
    const text =
      '{"row":2,"status":"booked","at":"x","meetingId":"m"}\nnot json\n{"row":"3","status":"booked","at":"x"}\n{"row":4,"status":"sent","at":"x"}\n{"row":4,"status":"boo';
    const warnings: string[] = [];
    const rows = foldRunRecords(parseRunLines(text, 'runs/k.jsonl', (w) => warnings.push(w)));
    expect([...rows.keys()]).toEqual([2, 4]);
    expect(rows.get(4)?.status).toBe('sent');
    expect(warnings).toEqual([
      'run log runs/k.jsonl: ignored an unreadable record on line 2',
      'run log runs/k.jsonl: ignored an unreadable record on line 3',
      'run log runs/k.jsonl: ignored an incomplete last record (line 5), left by an interrupted run',
    ]);
  });

  it('keys the log by scope too, so the same file against another workspace starts afresh', () => {
    expect(runLogKey(hash, 'route:prod@https://api.example')).not.toBe(
      runLogKey(hash, 'route:sandbox@http://127.0.0.1:4010'),
    );
    expect(runLogKey(hash, 'route:prod@https://api.example')).toMatch(/^[0-9a-f]{64}$/);
    expect(runLogKey(hash)).toBe(hash);
  });
});
