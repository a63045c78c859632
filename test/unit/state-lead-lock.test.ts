import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LeadBusyError, openState } from '../../src/state/index.js';
import { leadLockFile } from '../../src/state/lead-lock.js';

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
    expect((error as Error).message).toBe(
      'another schedctl process has been booking Ada@Acme.example for over 1 s; nothing was sent',
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
});
