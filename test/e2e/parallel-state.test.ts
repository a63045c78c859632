/**
 * Parallel schedctl processes on one config dir lose nothing: every change to config.json,
 * the ledger (its SQLite database) is one transaction (src/state). A barrier in
 * front of the sandbox (test/helpers/parallel-gate.ts) releases the parallel requests
 * together, so the writes that follow them really do overlap.
 */
import { ledgerRows } from '../helpers/ledger-db.js';
import { describe, expect, it } from 'vitest';
import { registerSecret } from '../helpers/cli.js';
import { barrier, startGate } from '../helpers/parallel-gate.js';
import { describeRun, jsonOf, readState, runKillable, type KillableResult } from '../helpers/parallel-run.js';
import { useSandbox } from '../helpers/sandbox.js';
import { keyFingerprint } from '../../src/state/identity.js';

const t = useSandbox();
const N_PROFILES = 12;
const N_BOOKS = 10;
const BOOK_PATH = '/v1/scheduling/meetings';

const run = (args: string[], env: Record<string, string> = {}, input?: string) =>
  runKillable(args, {
    configDir: t.dir,
    env: { SCHEDCTL_API_KEY: undefined, ...env },
    ...(input !== undefined ? { input } : {}),
    timeoutMs: 45_000,
  });
const ok = (r: KillableResult) => expect(r.code, describeRun(r)).toBe(0);

async function profileLs(): Promise<{ names: string[]; defaultName: string | undefined }> {
  const r = await run(['profile', 'ls', '--json']);
  ok(r);
  const { profiles } = jsonOf(r) as { profiles: Array<{ name: string; isDefault: boolean }> };
  return { names: profiles.map((p) => p.name).sort(), defaultName: profiles.find((p) => p.isDefault)?.name };
}

describe('profiles, in parallel', () => {
  it(`${N_PROFILES} parallel profile adds all land; parallel rm, use and add leave exactly what should be there`, async () => {
    const key = t.sb.keys.full;
    registerSecret(key);
    const gate = await startGate(t.sb.baseUrl);
    try {
      // Each add checks its key with one GET /v1/triggers: held until all 12 have asked.
      gate.before = barrier(N_PROFILES, (r) => r.method === 'GET' && r.path === '/v1/triggers');
      const names = Array.from({ length: N_PROFILES }, (_, i) => `p${String(i).padStart(2, '0')}`);
      const adds = await Promise.all(
        names.map((n) =>
          run(['profile', 'add', n, '--key-stdin', '--base-url', gate.baseUrl, '--json'], {}, `${key}\n`),
        ),
      );
      for (const r of adds) ok(r);
      expect(gate.seen.filter((r) => r.path === '/v1/triggers')).toHaveLength(N_PROFILES);
      let ls = await profileLs();
      expect(ls.names).toEqual(names);
      expect(names).toContain(ls.defaultName);
      const config = readState<{ profiles: Record<string, { baseUrl: string; apiKey: string }> }>(
        t.dir,
        'config.json',
        { profiles: {} },
      );
      for (const n of names) expect(config.profiles[n]).toEqual({ baseUrl: gate.baseUrl, apiKey: key });

      // In parallel: remove half, add three more (no key check), make one that stays the default.
      const removed = names.filter((_, i) => i % 2 === 0);
      const added = ['q0', 'q1', 'q2'];
      const chosen = 'p05';
      const mixed = await Promise.all([
        ...removed.map((n) => run(['profile', 'rm', n])),
        ...added.map((n) =>
          run(['profile', 'add', n, '--key-stdin', '--no-verify', '--base-url', gate.baseUrl], {}, `${key}\n`),
        ),
        run(['profile', 'use', chosen]),
      ]);
      for (const r of mixed) ok(r);
      ls = await profileLs();
      expect(ls.names).toEqual([...names.filter((n) => !removed.includes(n)), ...added].sort());
      expect(ls.defaultName).toBe(chosen);
    } finally {
      await gate.close();
    }
  });
});

describe('bookings, in parallel', () => {
  it(`${N_BOOKS} parallel books land in the journal and the meetings record; each re-run is already_booked with its meeting id`, async () => {
    const gate = await startGate(t.sb.baseUrl);
    try {
      const headers = { authorization: `Bearer ${t.sb.keys.full}`, 'content-type': 'application/json' };
      const start = new Date(Date.now() + 86_400_000); // a day ahead: no time slips into the past before its re-run
      const end = new Date(start.getTime() + 14 * 86_400_000);
      const plans: Array<{ email: string; reservationId: string; slot: string }> = [];
      for (let i = 0; i < N_BOOKS; i++) {
        const res = await fetch(`${t.sb.baseUrl}/v1/scheduling/events/intro-call/slots`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ start, end }),
        });
        const { reservationId, slots } = (await res.json()) as { reservationId: string; slots: string[] };
        plans.push({ email: `lead${i}@par.example`, reservationId, slot: slots[i]! });
      }
      const env = { SCHEDCTL_BASE_URL: gate.baseUrl, SCHEDCTL_API_KEY: t.sb.keys.full };
      const book = (p: (typeof plans)[number]) =>
        run(
          ['book', 'intro-call', '--start', p.slot, '--reservation', p.reservationId, '--email', p.email, '--json'],
          env,
        );
      // All ten bookings reach the sandbox together; their answers, and so their record writes, come together.
      gate.before = barrier(N_BOOKS, (r) => r.method === 'POST' && r.path === BOOK_PATH);
      const first = await Promise.all(plans.map(book));
      for (const r of first) ok(r);
      const ids = first.map((r) => jsonOf(r).meeting.id as string);
      expect(new Set(ids).size).toBe(N_BOOKS);

      const scope = `http://loopback:${new URL(gate.baseUrl).port}#key:${keyFingerprint(t.sb.keys.full)}`;
      const journal = ledgerRows<{ outcome: string; meetingId?: string }>(t.dir, 'attempts');
      expect(
        journal
          .filter((e) => e.outcome === 'booked')
          .map((e) => e.meetingId)
          .sort(),
      ).toEqual([...ids].sort());
      const meetings = ledgerRows<{ scope: string; id: string }>(t.dir, 'meetings');
      expect(meetings.map((m) => `${m.scope} ${m.id}`).sort()).toEqual(ids.map((id) => `${scope} ${id}`).sort());

      const again = await Promise.all(plans.map(book));
      for (const [i, r] of again.entries()) {
        ok(r);
        expect(jsonOf(r), describeRun(r)).toMatchObject({
          status: 'already_booked',
          meetingId: ids[i],
          reservationId: plans[i]!.reservationId,
        });
      }
      const state = await t.sb.state();
      expect(state.meetings).toHaveLength(N_BOOKS);
      expect(state.meetings.map((m) => m.id).sort()).toEqual([...ids].sort());
    } finally {
      await gate.close();
    }
  });
});
