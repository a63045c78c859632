/**
 * The team database stopped in the middle of a run, in the two ways the PostgreSQL fault campaign
 * (test/faults/parallel-postgres.test.ts) found wrong:
 * - after the run took the lead's lock and fired the trigger, before it sends the booking: it sends
 *   nothing and says the team state is unavailable (exit 9), not that another run took its lock
 *   (LEAD_LOCK_LOST, exit 5, "it was removed"); with the database back, the command books once;
 * - after the booking was sent, its answer lost: the attempt's record is kept on that machine;
 *   another machine then learns the outcome (already booked); the first machine's next run moves
 *   its kept record in without turning the known outcome back into "unknown" (which blocked the
 *   lead as LEAD_OUTCOME_UNKNOWN).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoRouteFirstArgs } from '../helpers/args.js';
import { runCli, show, tempDir } from '../helpers/cli.js';
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

describe('team state: the database stopped in the middle of a run', () => {
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
    // The trigger was fired before the stop: the error says the booking is what was not sent.
    expect(refused.stderr).toMatch(/; the booking was not sent/);
    expect(gate.seen.filter((r) => r.method === 'POST' && r.path === '/v1/scheduling/meetings')).toEqual([]);
    expect((await t.sb.state()).meetings.filter((m) => m.personEmail === email)).toEqual([]);

    const booked = await route();
    expect(booked.code, show(booked)).toBe(0);
    expect(booked.json().status).toBe('booked');
    expect((await t.sb.state()).meetings.filter((m) => m.personEmail === email)).toHaveLength(1);
  });

  it('a kept attempt moved in from its machine does not undo the outcome another machine learnt since', async () => {
    const url = await fixture.pg.createDatabase();
    const db = new URL(url).pathname.slice(1);
    const email = 'kept@acme.example';
    const env = { SCHEDCTL_STATE_URL: url, SCHEDCTL_BASE_URL: gate.baseUrl, SCHEDCTL_API_KEY: t.sb.keys.full };
    const [a, b] = [tempDir('schedctl-machine-a-'), tempDir('schedctl-machine-b-')];
    const route = (dir: string, region = 'emea', timeout = '10') =>
      runCli([...demoRouteFirstArgs(email, region), '--json', '--days', '14', '--timeout', timeout], {
        configDir: dir,
        env,
        timeoutMs: 60_000,
      });
    const outcomes = async () => (await fixture.pg.psql(`SELECT outcome FROM schedctl_attempts`, db)).split('\n');

    // Machine A: the booking is sent (the server books it), its answer never comes, and the
    // database is stopped as it leaves: A keeps the attempt's record on its machine.
    await t.sb.fault({ method: 'POST', path: '/v1/scheduling/meetings', fault: 'stall-after-commit' });
    gate.before = async (r) => {
      if (r.method === 'POST' && r.path === '/v1/scheduling/meetings') {
        gate.before = undefined;
        await fixture.pg.stop();
      }
    };
    const lost = await route(a, 'emea', '1');
    await fixture.pg.start();
    await t.sb.clearFaults();
    expect(lost.code, show(lost)).toBe(7);
    expect(lost.stderr).toMatch(/is kept on this machine/);

    // Machine B: the same route again resends that booking and learns it booked.
    const again = await route(b);
    expect(again.code, show(again)).toBe(0);
    expect(again.json().status).toBe('already_booked');
    expect(await outcomes()).not.toContain('unknown');

    // Machine A's next run moves its kept record in: the outcome stays known.
    const status = await runCli(['state', 'status', '--json'], { configDir: a, env });
    expect(status.code, show(status)).toBe(0);
    expect(status.stderr).toMatch(/^note: moved 1 journal record/m);
    expect(status.json().keptOnThisMachine).toBe(0);
    expect(await outcomes()).not.toContain('unknown');
    const other = await route(b, 'americas');
    expect(other.code, show(other)).toBe(5);
    expect(other.json().error.code).toBe('LEAD_HAS_MEETING');
    expect((await t.sb.state()).meetings.filter((m) => m.personEmail === email)).toHaveLength(1);
  });
});
