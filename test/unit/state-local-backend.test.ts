/**
 * The default backend (src/state/local/backend.ts) on its own: what it says it is, its
 * writability check, which lock each subject takes (a lead's, a meeting's), where run logs go (its table),
 * and the documents of a schedctl from before the tables moved in on first use.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { subjectLabel, type LockSubject } from '../../src/state/backend.js';
import { LeadBusyError, StateWriteError } from '../../src/state/errors.js';
import { leadLockFile, meetingLockFile, type LockWait } from '../../src/state/lead-lock.js';
import { localBackend } from '../../src/state/local/backend.js';
import { isStandIn } from '../../src/state/sqlite/documents-beside.js';
import { runRecordRows } from '../helpers/ledger-db.js';

const tempDir = () => mkdtempSync(join(tmpdir(), 'local-backend-'));
const TIMING = { waitMs: 2_000, staleMs: 10_000 };
/** A lead or meeting wait that gives up soon: the holder is this live process, never taken over. */
const SHORT = { waitMs: 200, staleMs: 10_000 };
const scope = 'default@https://api.example.com';
const lead: LockSubject = { kind: 'lead', scope, email: 'Ada@Acme.example' };
const meeting: LockSubject = { kind: 'meeting', scope, id: 'M-7' };

describe('subjectLabel', () => {
  it("is a lead's email as given, and a meeting's id after the word meeting", () => {
    expect(subjectLabel(lead)).toBe('Ada@Acme.example');
    expect(subjectLabel(meeting)).toBe('meeting M-7');
  });
});

describe('localBackend', () => {
  it('is the local kind, at the config directory, and opens nothing before it is used', async () => {
    const dir = tempDir();
    const backend = localBackend(dir, TIMING, TIMING);
    expect(backend.kind).toBe('local');
    expect(backend.where).toBe(dir);
    expect(readdirSync(dir)).toEqual([]);
    await backend.close();
  });

  it('checks the directory can be written (making it), and fails as STATE_WRITE when it cannot', async () => {
    const dir = join(tempDir(), 'cfg');
    const backend = localBackend(dir, TIMING, TIMING);
    await expect(backend.assertWritable()).resolves.toBeUndefined();
    expect(existsSync(dir)).toBe(true);
    expect(readdirSync(dir)).toEqual([]);

    const parent = tempDir();
    writeFileSync(join(parent, 'file'), '');
    const blocked = join(parent, 'file', 'cfg');
    const error = await localBackend(blocked, TIMING, TIMING)
      .assertWritable()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StateWriteError);
    expect((error as StateWriteError).path).toBe(blocked);
    expect((error as StateWriteError).osCode).toBe('ENOTDIR');
  });

  it("holds a lead by the lead's lock, released after the work", async () => {
    const dir = tempDir();
    const backend = localBackend(dir, TIMING, TIMING);
    const leadLock = `${leadLockFile(dir, scope, 'ada@acme.example')}.lock`;
    const meetingLock = `${meetingLockFile(dir, scope, 'M-7')}.lock`;
    const seen = await backend.hold(lead, async (held) => {
      await held.assertHeld();
      return { lead: existsSync(leadLock), meeting: existsSync(meetingLock) };
    });
    expect(seen).toEqual({ lead: true, meeting: false });
    expect(existsSync(leadLock)).toBe(false);
  });

  it("holds a meeting by the meeting's lock, released after the work", async () => {
    const dir = tempDir();
    const backend = localBackend(dir, TIMING, TIMING);
    const meetingLock = `${meetingLockFile(dir, scope, 'm-7')}.lock`;
    const seen = await backend.hold(meeting, async (held) => {
      await held.assertHeld();
      return {
        meeting: existsSync(meetingLock),
        owner: JSON.parse(readFileSync(join(meetingLock, 'owner.json'), 'utf8')) as { pid: number },
        locks: readdirSync(join(dir, 'leads')),
      };
    });
    expect(seen.meeting).toBe(true);
    expect(seen.owner.pid).toBe(process.pid);
    expect(seen.locks).toHaveLength(1);
    expect(existsSync(meetingLock)).toBe(false);
  });

  it('makes a second run on the same meeting wait (told who holds it), then fail naming the meeting', async () => {
    const dir = tempDir();
    const first = localBackend(dir, TIMING, TIMING);
    const second = localBackend(dir, TIMING, SHORT);
    let release!: () => void;
    let holding!: () => void;
    const taken = new Promise<void>((resolve) => (holding = resolve));
    const held = first.hold(meeting, () => {
      holding();
      return new Promise<void>((resolve) => (release = resolve));
    });
    await taken;
    const waits: LockWait[] = [];
    let ran = false;
    const error = await second
      .hold(
        { ...meeting, id: 'm-7' },
        async () => {
          ran = true;
        },
        (wait) => waits.push(wait),
      )
      .catch((e: unknown) => e);
    release();
    await held;
    expect(ran).toBe(false);
    expect(error).toBeInstanceOf(LeadBusyError);
    expect((error as LeadBusyError).message).toMatch(
      /^another schedctl run has been booking meeting m-7 for over \d+ m?s: pid \d+ on .+; nothing was sent$/,
    );
    expect((error as LeadBusyError).hint).toContain(`remove ${meetingLockFile(dir, scope, 'M-7')}.lock`);
    expect(waits.length).toBeGreaterThanOrEqual(1);
    expect(waits[0]).toMatchObject({ owner: { pid: process.pid, host: hostname() }, waitMs: SHORT.waitMs });
  });

  it("keeps run logs in the ledger's schedctl_run_records, keyed by the log's key", async () => {
    const dir = tempDir();
    const logs = await localBackend(dir, TIMING, TIMING).runLogs();
    const id = { key: 'a'.repeat(64), workspace: scope };
    const log = await logs.open(id, { now: () => new Date('2031-03-01T12:00:00.000Z') });
    await log.append({ row: 3, status: 'started', executionId: 'x3' });
    await log.close();
    expect(runRecordRows(dir).map((r) => [r.key, r.row, r.status])).toEqual([[id.key, 3, 'started']]);
    expect(readdirSync(join(dir, 'runs')).filter((f) => f.endsWith('.jsonl'))).toEqual([]);
    expect(await logs.read(id)).toEqual(
      new Map([[3, { row: 3, status: 'started', executionId: 'x3', at: '2031-03-01T12:00:00.000Z' }]]),
    );
  });

  it('moves in the documents of a schedctl from before the tables on first use, a record listed twice once (its later copy)', async () => {
    const dir = tempDir();
    const fire = {
      id: 'f1',
      scope,
      triggerId: 't1',
      personEmail: 'Ada@Acme.example',
      answersKey: 'k',
      preparedAt: '2031-03-01T12:00:00.000Z',
    };
    writeFileSync(
      join(dir, 'fires.json'),
      JSON.stringify({
        fires: [
          { ...fire, state: 'prepared' },
          { ...fire, state: 'answered', executionId: 'x1' },
          { ...fire, id: 'f2', state: 'sent' },
        ],
      }),
    );
    const said: string[] = [];
    const backend = localBackend(dir, TIMING, TIMING, (line) => said.push(line));
    const sql = await backend.sql();
    // A write opens the database file: the documents move in then, and are put aside.
    expect(await sql.run('DELETE FROM schedctl_fires WHERE id = ?', ['none'])).toBe(0);
    const rows = await sql.all<{ id: string; state: string; execution_id: string | null }>(
      'SELECT id, state, execution_id FROM schedctl_fires ORDER BY id',
    );
    expect(rows).toEqual([
      { id: 'f1', state: 'answered', execution_id: 'x1' },
      { id: 'f2', state: 'sent', execution_id: null },
    ]);
    // A stand-in an older schedctl refuses takes its place (documents-beside.ts).
    expect(isStandIn(join(dir, 'fires.json'))).toBe(true);
    expect(readdirSync(join(dir, 'ledger-documents-before-sqlite'))).toEqual(['fires.json']);
    expect(said).toEqual([expect.stringContaining('(fires.json)')]);
    await backend.close();
  });
});
