import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LeadBusyError, LeadLockLostError } from '../../src/state/errors.js';
import { openState } from '../../src/state/index.js';
import { leadLockFile, mayTakeOver, readOwner } from '../../src/state/lead-lock.js';
import { mkdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

const NOW = new Date('2031-03-01T12:00:00.000Z');
const tempDir = () => mkdtempSync(join(tmpdir(), 'lead-lock-'));
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const lead = { scope: 'default@https://api.example.com', email: 'Ada@Acme.example' };

describe('holdLead: one booking of a lead at a time', () => {
  it('makes a second run for the same lead (any case of the email) wait until the first is done', async () => {
    const state = openState(tempDir(), { now: () => NOW });
    const events: string[] = [];
    const first = state.holdLead(lead, async () => {
      events.push('first:start');
      await sleep(300);
      events.push('first:end');
      return 1;
    });
    await sleep(50);
    const second = state.holdLead({ ...lead, email: ' ada@acme.EXAMPLE ' }, async () => {
      events.push('second:start');
      return 2;
    });
    expect(await Promise.all([first, second])).toEqual([1, 2]);
    expect(events).toEqual(['first:start', 'first:end', 'second:start']);
  });

  it('keeps holding a lead past the stale age while the work goes on (the lock is refreshed)', async () => {
    const state = openState(tempDir(), { now: () => NOW, staleMs: 2000 });
    const events: string[] = [];
    const first = state.holdLead(lead, async () => {
      await sleep(3200);
      events.push('first:end');
    });
    await sleep(50);
    await state.holdLead(lead, async () => events.push('second'));
    await first;
    expect(events).toEqual(['first:end', 'second']);
  });

  it('lets other leads and other workspaces go at once', async () => {
    const state = openState(tempDir(), { now: () => NOW });
    const events: string[] = [];
    const held = state.holdLead(lead, async () => {
      await sleep(300);
      events.push('held:end');
    });
    await sleep(50);
    await state.holdLead({ ...lead, email: 'grace@acme.example' }, async () => events.push('other lead'));
    await state.holdLead({ ...lead, scope: 'default@https://other.example.com' }, async () =>
      events.push('other workspace'),
    );
    await held;
    expect(events).toEqual(['other lead', 'other workspace', 'held:end']);
  });

  it('gives up after the wait with LeadBusyError (exit 5), naming the lead and the lock, running nothing', async () => {
    const dir = tempDir();
    const state = openState(dir, { now: () => NOW, leadWaitMs: 1000 });
    let release!: () => void;
    const held = state.holdLead(lead, () => new Promise<void>((resolve) => (release = resolve)));
    await sleep(50);
    let ran = false;
    const error = await state
      .holdLead(lead, async () => {
        ran = true;
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LeadBusyError);
    expect((error as LeadBusyError).exitCode).toBe(5);
    expect((error as LeadBusyError).code).toBe('LEAD_BUSY');
    expect((error as Error).message).toMatch(
      new RegExp(
        `^another schedctl run has been booking Ada@Acme\\.example for over 1 s: pid ${process.pid} on ${hostname().replace(/[.]/g, '\\.')} \\(.+, since \\d{4}-.+\\); nothing was sent$`,
      ),
    );
    expect((error as LeadBusyError).hint).toContain(`${leadLockFile(dir, lead.scope, lead.email)}.lock`);
    expect(ran).toBe(false);
    release();
    await held;
  });

  it('releases the lead when the work fails, and keeps no email in a file name', async () => {
    const dir = tempDir();
    const state = openState(dir, { now: () => NOW, leadWaitMs: 100 });
    await expect(state.holdLead(lead, async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await state.holdLead(lead, async () => 'again')).toBe('again');
    const file = leadLockFile(dir, lead.scope, lead.email);
    expect(existsSync(`${file}.lock`)).toBe(false);
    expect(file).toMatch(/[/\\]leads[/\\][0-9a-f]{32}$/);
    expect(readdirSync(join(dir, 'leads')).join(' ')).not.toMatch(/acme/i);
  });

  it('says at once who holds the lock to a run that waits (pid, host, since, command)', async () => {
    const state = openState(tempDir(), { now: () => NOW, leadWaitMs: 2000 });
    let release!: () => void;
    const held = state.holdLead(lead, () => new Promise<void>((resolve) => (release = resolve)));
    await sleep(50);
    const waits: { pid?: number; host?: string; waitedMs: number }[] = [];
    const second = state.holdLead(
      lead,
      async () => 'second',
      (w) => waits.push({ pid: w.owner?.pid, host: w.owner?.host, waitedMs: w.waitedMs }),
    );
    await sleep(200);
    expect(waits[0]).toMatchObject({ pid: process.pid, host: hostname() });
    expect(waits[0]!.waitedMs).toBeLessThan(1000);
    release();
    expect(await second).toBe('second');
    await held;
  });

  it("takes over at once a lock whose holder on this host is gone (a killed run's)", async () => {
    const dir = tempDir();
    const state = openState(dir, { now: () => NOW, leadWaitMs: 500, staleMs: 60_000 });
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString();
    const lockDir = `${leadLockFile(dir, lead.scope, lead.email)}.lock`;
    mkdirSync(lockDir, { recursive: true });
    writeFileSync(
      join(lockDir, 'owner.json'),
      JSON.stringify({ token: 't', pid: Number(gone), host: hostname(), user: 'u', command: 'c', since: 's' }),
    );
    expect(await state.holdLead(lead, async () => 'taken over')).toBe('taken over');
  });

  it('never takes over a lock whose holder on this host still runs, however still its heartbeat (a stopped run keeps it)', () => {
    const owner = { token: 't', pid: process.pid, host: hostname(), user: 'u', command: 'c', since: 's' };
    expect(mayTakeOver(owner, 10 * 60_000, 1000)).toBe(false);
    expect(mayTakeOver({ ...owner, pid: 0 }, 0, 1000)).toBe(true);
  });

  it("takes over another host's lock only once its heartbeat stood still for the stale age, on the waiter's own clock", () => {
    const owner = { token: 't', pid: process.pid, host: `not-${hostname()}`, user: 'u', command: 'c', since: 's' };
    expect(mayTakeOver(owner, 999, 1000)).toBe(false);
    expect(mayTakeOver(owner, 1000, 1000)).toBe(true);
    expect(mayTakeOver(undefined, 999, 1000)).toBe(false);
    expect(mayTakeOver(undefined, 1000, 1000)).toBe(true);
  });

  it('takes over a lock from another host whose heartbeat stopped, but not one whose heartbeat goes on', async () => {
    const dir = tempDir();
    const lockDir = `${leadLockFile(dir, lead.scope, lead.email)}.lock`;
    mkdirSync(lockDir, { recursive: true });
    const ownerFile = join(lockDir, 'owner.json');
    writeFileSync(
      ownerFile,
      JSON.stringify({ token: 't', pid: 1, host: `elsewhere-${hostname()}`, user: 'u', command: 'c', since: 's' }),
    );
    // Beating: the waiter gives up.
    let beat = 0;
    const beating = setInterval(() => {
      beat += 1000;
      utimesSync(ownerFile, new Date(beat), new Date(beat));
    }, 100);
    const busy = await openState(dir, { now: () => NOW, leadWaitMs: 1200, staleMs: 600 })
      .holdLead(lead, async () => 'ran')
      .catch((e: unknown) => e);
    clearInterval(beating);
    expect(busy).toBeInstanceOf(LeadBusyError);
    // Still: taken over after the stale age.
    expect(
      await openState(dir, { now: () => NOW, leadWaitMs: 5000, staleMs: 600 }).holdLead(lead, async () => 'ran'),
    ).toBe('ran');
  });

  it('fails assertHeld (nothing may be sent) once the lock was taken over, and leaves the new holder its lock', async () => {
    const dir = tempDir();
    const state = openState(dir, { now: () => NOW });
    const lockDir = `${leadLockFile(dir, lead.scope, lead.email)}.lock`;
    const error = await state
      .holdLead(lead, async (held) => {
        held.assertHeld();
        // Another run forced it (state unlock, or a race of two takers).
        rmSync(lockDir, { recursive: true, force: true });
        mkdirSync(lockDir);
        writeFileSync(
          join(lockDir, 'owner.json'),
          JSON.stringify({
            token: 'other',
            pid: 4242,
            host: 'host-b',
            user: 'bob',
            command: 'schedctl route',
            since: 's',
          }),
        );
        held.assertHeld();
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LeadLockLostError);
    expect((error as LeadLockLostError).exitCode).toBe(5);
    expect((error as Error).message).toBe(
      'this run lost its lock on Ada@Acme.example before sending (now held by pid 4242 on host-b (bob, since s: schedctl route)); nothing was sent',
    );
    expect(readOwner(lockDir)?.token).toBe('other');
  });
});

describe('lockHome: the claim belongs to the ledger file', () => {
  it('is the directory of the real file, symlinks resolved; the fallback when the file is not there', async () => {
    const { mkdtempSync, writeFileSync, symlinkSync, realpathSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { lockHome } = await import('../../src/state/lead-lock.js');
    const real = realpathSync(mkdtempSync(join(tmpdir(), 'lock-home-')));
    const other = mkdtempSync(join(tmpdir(), 'lock-home-'));
    writeFileSync(join(real, 'ledger.db'), '');
    symlinkSync(join(real, 'ledger.db'), join(other, 'ledger.db'));
    expect(lockHome(join(real, 'ledger.db'), other)).toBe(real);
    expect(lockHome(join(other, 'ledger.db'), other)).toBe(real);
    expect(lockHome(join(other, 'missing.db'), 'fallback')).toBe('fallback');
    // Its own directory, reached through a symlink: named as given.
    const link = `${other}-link`;
    symlinkSync(real, link);
    expect(lockHome(join(link, 'ledger.db'), link)).toBe(link);
  });
});
