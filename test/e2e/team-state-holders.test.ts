/**
 * Team state (issue 37, item 9): every lock holder says who it is, and nothing more. A waiting
 * run names the holder (pid, host, user, command) from its first line, also when both start at
 * the same moment (a lock taken and its holder written in two steps left a moment with no
 * holder to name); the holder record says the command and the names of its options, never their
 * values (a lead's email, phone number, form answers: every reader of the database sees it).
 */
import pg from 'pg';
import { beforeEach, describe, expect, it } from 'vitest';
import { DEMO_TRIGGER } from '../helpers/args.js';
import { describeRun, sleep, type Killable } from '../helpers/parallel-run.js';
import { usePostgres } from '../helpers/postgres.js';
import { useSandbox } from '../helpers/sandbox.js';
import { dbName, machine } from '../helpers/team.js';

const fx = usePostgres();
const t = useSandbox({ holdSeconds: 60 });
const SLOW = { timeout: 90_000 };

let stateUrl = '';
beforeEach(async () => {
  stateUrl = await fx.pg.createDatabase();
});
const sql = (query: string) => fx.pg.psql(query, dbName(stateUrl));

const PHONE = '+44 20 7946 0958';
/** A route whose every value is personal: none may reach the holder record. */
const routeArgs = (email: string) => [
  'route',
  '--trigger',
  DEMO_TRIGGER,
  '--email',
  email,
  '--field',
  'company=Hollowmere Analytics',
  '--field',
  'region=emea',
  '--field',
  `notes=call me on ${PHONE}`,
  '--slot',
  'first',
  '--yes',
  '--json',
];

async function until(check: () => Promise<boolean>, timeoutMs = 20_000, everyMs = 20): Promise<boolean> {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await sleep(everyMs))
    if (await check()) return true;
  return false;
}

/** The first line a waiting run says about the holder, as soon as it says it. */
function firstWaitLine(run: Killable): Promise<string | undefined> {
  return new Promise((resolve) => {
    let text = '';
    run.child.stderr?.on('data', (c: Buffer) => {
      text += c.toString();
      const line = text.split('\n').find((l) => l.startsWith('waiting for another schedctl run'));
      if (line) resolve(line);
    });
    void run.done.then(() => resolve(undefined));
  });
}

describe('lock holders', () => {
  it(
    'the holder record names the command, its option names and who runs it; no value of the command',
    SLOW,
    async () => {
      await machine(t.sb, stateUrl).run(['state', 'status']); // the schema made
      const email = 'Priya.Raman@Hollowmere.example';
      await t.sb.fault({ method: 'POST', path: '/v1/scheduling/events/*/slots', fault: 'delay', delayMs: 2000 });
      const a = machine(t.sb, stateUrl).start(routeArgs(email));
      let text = '';
      expect(await until(async () => (text = await sql('SELECT owner::text FROM schedctl_locks')) !== '')).toBe(true);
      const owner = JSON.parse(text) as Record<string, unknown>;
      expect(owner).toMatchObject({
        pid: a.child.pid,
        command: 'schedctl route --trigger --email --field --slot --yes --json',
      });
      // The lock's name says which lead (normalised), as it must to be a lock; the owner nothing of it.
      expect(JSON.stringify(owner).toLowerCase()).not.toMatch(/priya|hollowmere|emea|7946|first/);

      // A second run for the lead names the holder from its first line.
      const b = machine(t.sb, stateUrl).start(routeArgs(email));
      const line = await firstWaitLine(b);
      expect(line).toContain(`pid ${a.child.pid} on `);
      expect(line).toContain('schedctl route --trigger --email --field --slot --yes --json');
      expect(line).not.toContain('has not said who it is');
      const [ra, rb] = await Promise.all([a.done, b.done]);
      expect(ra.code, describeRun(ra)).toBe(0);
      expect(rb.code, describeRun(rb)).not.toBeNull();
    },
  );

  it('runs that start together: the one that waits names the one that holds, every time', SLOW, async () => {
    await machine(t.sb, stateUrl).run(['state', 'status']);
    // Every run's slots answer late (a fault counts its uses): whichever run holds the lead holds it a while.
    await t.sb.fault({
      method: 'POST',
      path: '/v1/scheduling/events/*/slots',
      fault: 'delay',
      delayMs: 1500,
      count: 6,
    });
    const pairs = [1, 2, 3].map((i) => {
      const runs = [0, 1].map(() => machine(t.sb, stateUrl).start(routeArgs(`together-${i}@acme.example`)));
      return { runs, lines: runs.map(firstWaitLine) };
    });
    for (const { runs, lines } of pairs) {
      const said = (await Promise.all(lines)).filter((l): l is string => l !== undefined);
      const ended = await Promise.all(runs.map((r) => r.done));
      expect(said.length, ended.map(describeRun).join('\n')).toBeGreaterThan(0);
      for (const line of said) {
        expect(line).not.toContain('has not said who it is');
        expect(runs.some((r) => line.includes(`pid ${r.child.pid} on `))).toBe(true);
      }
    }
    await t.sb.clearFaults();
  });
  it(
    'a holder seen before it has said who it is is named once it has (its lock taken and recorded in two steps)',
    SLOW,
    async () => {
      // The workspace of this sandbox's key, as lock names carry it.
      const scoped = await machine(t.sb, stateUrl).run(routeArgs('scope@acme.example'));
      expect(scoped.code, describeRun({ ...scoped, signal: null, killed: false, ms: 0 })).toBe(0);
      const workspace = await sql('SELECT DISTINCT workspace FROM schedctl_attempts');
      const email = 'two-step@acme.example';
      const name = `lead ${workspace} ${email}`;
      // A holder that takes the lock first and says who it is after (as schedctl did before, and
      // an older schedctl still does): the waiter must not call it nameless in between.
      const holder = new pg.Client({ connectionString: stateUrl });
      await holder.connect();
      try {
        await holder.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [name]);
        const b = machine(t.sb, stateUrl).start(routeArgs(email));
        const line = firstWaitLine(b);
        // Asked on the holder's own connection: a new connection per look could take longer than
        // the waiter's moment of grace on a loaded machine.
        const asked = async () =>
          (
            await holder.query<{ n: string }>(
              `SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'schedctl' AND query LIKE '%pg_try_advisory_lock%'`,
            )
          ).rows[0]?.n !== '0';
        expect(await until(asked, 20_000, 1)).toBe(true);
        const owner = {
          token: 't',
          pid: 4343,
          host: 'two-step-host',
          user: 'ana',
          command: 'schedctl route',
          since: new Date().toISOString(),
        };
        await holder.query(
          'INSERT INTO schedctl_locks (name, lock_key, backend_pid, owner) VALUES ($1, hashtextextended($1, 0), pg_backend_pid(), $2)',
          [name, JSON.stringify(owner)],
        );
        expect(await line).toContain('pid 4343 on two-step-host (ana, since');
        await holder.end();
        const rb = await b.done;
        expect(rb.code, describeRun(rb)).toBe(0);
      } finally {
        await holder.end().catch(() => {});
      }
    },
  );
});
