/**
 * The team state's session locks (postgres/locks.ts) against a real PostgreSQL: one name per lead
 * (however its email is written) or meeting, taken once per process as across processes, its
 * holder recorded and forgotten with it; a wait that ends naming the command that frees it; a
 * lock whose session ended refusing the send it guards.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { heldLocks, releaseLock } from '../../src/state/postgres/admin.js';
import { postgresBackend, type PostgresBackend } from '../../src/state/postgres/backend.js';
import { holderOf, lockName, takeLock } from '../../src/state/postgres/locks.js';
import type { LockWait } from '../../src/state/lead-lock.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';

let pg: TestPostgres;
let url: string;
const root = mkdtempSync(join(tmpdir(), 'pg-locks-'));
const opened: PostgresBackend[] = [];
beforeAll(async () => {
  pg = await startPostgres();
  url = await pg.createDatabase();
}, 60_000);
afterAll(async () => {
  for (const b of opened) await b.close();
  await pg?.destroy();
  rmSync(root, { recursive: true, force: true });
});

let n = 0;
async function open(leadWaitMs = 300): Promise<PostgresBackend> {
  const dir = join(root, `c${++n}`);
  mkdirSync(dir);
  const backend = postgresBackend({ url, dir, leadWaitMs });
  opened.push(backend);
  await backend.ready();
  return backend;
}
const holders = async (b: PostgresBackend, name: string) =>
  b.db.query<{ name: string }>('SELECT name FROM schedctl_locks WHERE name = $1', [name]);

describe('a session lock', () => {
  it('is named by the lead as written anywhere (trimmed, any case), and by the meeting id in any case', () => {
    expect(lockName({ kind: 'lead', scope: 'ws-1', email: '  Ann@ACME.example ' })).toBe('lead ws-1 ann@acme.example');
    expect(lockName({ kind: 'meeting', scope: 'ws-1', id: 'MTG_Ab1' })).toBe('meeting ws-1 mtg_ab1');
  });

  it('is taken once in this process too, its holder recorded, and both given back once', async () => {
    const b = await open();
    const name = 'lead ws-1 once@acme.example';
    const first = await takeLock(b.db, name);
    expect(first?.alive()).toBe(true);
    // An advisory lock is re-entrant in its session: this process's second taker is refused all the same.
    expect(await takeLock(b.db, name)).toBeUndefined();
    expect(await holderOf(b.db, name)).toMatchObject({ pid: process.pid });
    expect(await holders(b, name)).toHaveLength(1);
    await first!.release();
    await first!.release();
    expect(await holders(b, name)).toEqual([]);
    expect(await holderOf(b.db, name)).toBeUndefined();
    const again = await takeLock(b.db, name);
    expect(again).toBeDefined();
    await again!.release();
  });

  it('held by another run: the wait reports the holder, then ends naming the command that frees it', async () => {
    const holder = await open();
    const waiter = await open();
    const lead = await takeLock(holder.db, lockName({ kind: 'lead', scope: 'ws-1', email: 'busy@acme.example' }));
    const meeting = await takeLock(holder.db, lockName({ kind: 'meeting', scope: 'ws-1', id: 'mtg_busy' }));
    const waits: LockWait[] = [];
    let ran = false;
    await expect(
      waiter.hold(
        { kind: 'lead', scope: 'ws-1', email: 'Busy@acme.example' },
        async () => (ran = true),
        (w) => waits.push(w),
      ),
    ).rejects.toMatchObject({
      code: 'LEAD_BUSY',
      hint: expect.stringContaining('run schedctl state unlock busy@acme.example'),
    });
    expect(ran).toBe(false);
    expect(waits[0]?.owner).toMatchObject({ pid: process.pid });
    await expect(
      waiter.hold({ kind: 'meeting', scope: 'ws-1', id: 'mtg_busy' }, async () => (ran = true)),
    ).rejects.toMatchObject({ hint: expect.stringContaining('run schedctl state unlock --meeting mtg_busy') });
    expect(ran).toBe(false);
    await lead!.release();
    await meeting!.release();
    // Free now: the work runs, and the lock is given back after it.
    expect(await waiter.hold({ kind: 'lead', scope: 'ws-1', email: 'busy@acme.example' }, async () => 'done')).toBe(
      'done',
    );
    expect(await holders(waiter, 'lead ws-1 busy@acme.example')).toEqual([]);
  });

  it('whose session was ended (state unlock) refuses the send it guards: LEAD_LOCK_LOST', async () => {
    const admin = await open();
    const b = await open();
    await expect(
      b.hold({ kind: 'lead', scope: 'ws-1', email: 'lost@acme.example' }, async (held) => {
        await held.assertHeld(); // a moment ago the lock's connection answered
        const [mine] = (await heldLocks(admin)).filter((h) => h.of === 'lost@acme.example');
        expect(await releaseLock(admin, mine!)).toBe(true);
        await new Promise((resolve) => setTimeout(resolve, 100)); // the server's word of it arrives
        await held.assertHeld();
        return 'sent';
      }),
    ).rejects.toMatchObject({ code: 'LEAD_LOCK_LOST' });
  });
});

describe("a bulk run's log on the team state", () => {
  const id = { key: 'ef'.repeat(32), workspace: 'ws-run' };

  it('one run at a time (the second refused naming the first); its records read back in order', async () => {
    const a = await open();
    const b = await open();
    const log = await (await a.runLogs()).open(id, { now: () => new Date('2026-12-01T10:00:00Z') });
    expect(log.path).toContain(`(run log ${id.key.slice(0, 12)})`);
    await expect((await b.runLogs()).open(id)).rejects.toMatchObject({
      code: 'RUN_IN_PROGRESS',
      message: expect.stringMatching(new RegExp(`@.*, pid ${process.pid}, since 20`)),
    });
    expect(await log.append({ row: 1, status: 'started' })).toEqual({
      row: 1,
      status: 'started',
      at: '2026-12-01T10:00:00.000Z',
    });
    await log.append({ row: 1, status: 'booked', meetingId: 'mtg_1', at: '2026-12-01T10:00:01.000Z' });
    await log.append({ row: 2, status: 'started' });
    const rows = await (await b.runLogs()).read(id);
    expect(rows.get(1)).toMatchObject({ status: 'booked', meetingId: 'mtg_1' });
    expect(rows.get(2)).toMatchObject({ status: 'started' });
    await log.close();
    await log.close();
    await expect(log.append({ row: 3, status: 'started' })).rejects.toThrow(/is closed/);
    // Closed: free for another run.
    const next = await (await b.runLogs()).open(id);
    await next.close();
  });

  it('whose lock went with its connection starts no new row; what a sent row became is still written', async () => {
    const admin = await open();
    const runner = await open();
    const other = { ...id, key: '12'.repeat(32) };
    const log = await (await runner.runLogs()).open(other);
    await log.append({ row: 1, status: 'started' });
    const [mine] = (await heldLocks(admin)).filter((h) => h.subject === 'run' && h.of === other.key);
    expect(await releaseLock(admin, mine!)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 100)); // the server's word of it arrives
    await expect(log.append({ row: 2, status: 'started' })).rejects.toMatchObject({
      code: 'STATE_UNAVAILABLE',
      message: expect.stringContaining('the connection holding this run was lost'),
    });
    await log.append({ row: 1, status: 'booked', meetingId: 'mtg_9' });
    const rows = await (await admin.runLogs()).read(other);
    expect([...rows.keys()]).toEqual([1]);
    expect(rows.get(1)).toMatchObject({ status: 'booked', meetingId: 'mtg_9' });
    await log.close();
  });
});
