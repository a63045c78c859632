/**
 * A team-state run whose lead lock goes with a stopped database (found by the PostgreSQL fault
 * campaign, test/faults/parallel-postgres.test.ts): the database stops after the run took the
 * lead's lock and fired the trigger, before it sends the booking. It sends nothing and says the
 * team state is unavailable (exit 9), not that another run took its lock (LEAD_LOCK_LOST, exit 5,
 * "it was removed"); with the database back, the same command books the lead once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoRouteFirstArgs } from '../helpers/args.js';
import { runCli, show } from '../helpers/cli.js';
import { startGate, type Gate } from '../helpers/parallel-gate.js';
import { usePostgres } from '../helpers/postgres.js';
import { useSandbox } from '../helpers/sandbox.js';

const t = useSandbox({ holdSeconds: 60 });
const fixture = usePostgres();
let gate: Gate;
beforeAll(async () => {
  gate = await startGate(t.sb.baseUrl);
});
afterAll(async () => gate?.close());

describe('team state: the database stops while a run holds a lead lock', () => {
  it('refuses with exit 9 before the booking is sent, and the lead is booked once when the database is back', async () => {
    const url = await fixture.pg.createDatabase();
    const email = 'outage@acme.example';
    const env = { SCHEDCTL_STATE_URL: url, SCHEDCTL_BASE_URL: gate.baseUrl, SCHEDCTL_API_KEY: t.sb.keys.full };
    const route = () =>
      runCli([...demoRouteFirstArgs(email), '--json', '--days', '14'], { configDir: t.dir, env, timeoutMs: 60_000 });
    let stopped = false;
    // The lock is taken and the trigger fired by then: the slots request waits for the database to stop.
    gate.before = async (r) => {
      if (stopped || r.method !== 'POST' || !/^\/v1\/scheduling\/events\/[^/]+\/slots/.test(r.path)) return;
      stopped = true;
      await fixture.pg.stop();
    };
    const refused = await route();
    gate.before = undefined;
    await fixture.pg.start();
    expect(stopped).toBe(true);
    expect(refused.code, show(refused)).toBe(9);
    expect(refused.json().error.code).toBe('STATE_UNAVAILABLE');
    expect(refused.stderr).toMatch(/nothing was sent/);
    expect(gate.seen.filter((r) => r.method === 'POST' && r.path === '/v1/scheduling/meetings')).toEqual([]);
    expect((await t.sb.state()).meetings.filter((m) => m.personEmail === email)).toEqual([]);

    const booked = await route();
    expect(booked.code, show(booked)).toBe(0);
    expect(booked.json().status).toBe('booked');
    expect((await t.sb.state()).meetings.filter((m) => m.personEmail === email)).toHaveLength(1);
  });
});
