/**
 * Team state on PostgreSQL (issue 24), end to end, when the way to the database fails, and the
 * rate budget shared by machines. Like team-state.test.ts: "machines" are config dirs sharing one
 * database of a real PostgreSQL started by this file (a fresh database per test) and one sandbox;
 * the measure is what the sandbox received and what the database holds.
 *
 * The cluster's role schedctl_pw has a password, so the state URL carries one: every CLI output
 * (stdout, stderr, also with --debug) is checked for it by test/helpers/cli.ts (registerSecret).
 */
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { bookSlotArgs, demoFireArgs, demoRouteFirstArgs } from '../helpers/args.js';
import { registerSecret, show, tempDir } from '../helpers/cli.js';
import { describeRun, jsonOf, sleep } from '../helpers/parallel-run.js';
import { usePostgres } from '../helpers/postgres.js';
import { startTestSandbox, useSandbox } from '../helpers/sandbox.js';
import { startTcpProxy } from '../helpers/tcp-proxy.js';
import { machine, viaPort, type Machine } from '../helpers/team.js';

const PASSWORD = 'team-Pw/secret %42';
registerSecret(PASSWORD, encodeURIComponent(PASSWORD));
const fx = usePostgres({ password: PASSWORD });
const t = useSandbox({ holdSeconds: 60 });
const BOOK_PATH = '/v1/scheduling/meetings';
/** Many CLI runs a test, on a machine shared with other work: room beyond the suite's 30 s. */
const SLOW = { timeout: 90_000 };

let db = '';
let n = 0;
beforeEach(async () => {
  db = `faults_${process.pid}_${++n}`;
  await fx.pg.createDatabase(db);
});
/** The test's database as schedctl_pw, with the password in the URL. */
const passwordUrl = () => fx.pg.databaseUrl(db, { password: true });
/** The same URL as messages must show it: no password. */
const shownUrl = () => `postgres://schedctl_pw@${fx.pg.host}:${fx.pg.port}/${db}`;

async function meetingsOf(email: string) {
  return (await t.sb.state()).meetings.filter((m) => m.personEmail === email);
}

async function freshSlots(m: Machine, event: string): Promise<{ reservationId: string; slots: string[] }> {
  const r = await m.run(['slots', event, '--json', '--days', '14']);
  expect(r.code, show(r)).toBe(0);
  return r.json();
}

async function until(check: () => Promise<boolean>, timeoutMs = 20_000): Promise<boolean> {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await sleep(20)) if (await check()) return true;
  return false;
}

describe('the database down', () => {
  it(
    'route, book and trigger fire refuse before sending (exit 9, the URL without its password, also with --debug); triggers ls still works; after a restart the lead is booked once',
    SLOW,
    async () => {
      const email = 'down@acme.example';
      const a = machine(t.sb, passwordUrl());
      const ready = await a.run(['state', 'status', '--json']); // the schema is made
      expect(ready.code, show(ready)).toBe(0);
      expect(ready.json().location).toBe(shownUrl());
      const s = await freshSlots(a, 'intro-call');
      const sentBefore = (await t.sb.state()).requests.length;

      await fx.pg.stop();
      try {
        const refused = [
          await a.run([...demoRouteFirstArgs(email, 'emea'), '--json']),
          await a.run([...demoRouteFirstArgs(email, 'emea'), '--json', '--debug']),
          await a.run([...bookSlotArgs('intro-call', s.slots[1]!, s.reservationId, email), '--json']),
          await a.run([...bookSlotArgs('intro-call', s.slots[1]!, s.reservationId, email), '--debug']),
          await a.run([...demoFireArgs(email, 'emea'), '--json']),
          await a.run([...demoFireArgs(email, 'emea'), '--debug']),
        ];
        for (const r of refused) {
          expect(r.code, show(r)).toBe(9);
          expect(r.stdout + r.stderr, show(r)).toContain('STATE_UNAVAILABLE');
          expect(r.stdout + r.stderr, show(r)).toContain(`the team state at ${shownUrl()} cannot be used`);
          expect(r.stdout + r.stderr, show(r)).toContain('nothing was sent');
          expect(r.stderr, show(r)).not.toMatch(/\n\s+at /); // no stack trace
        }
        // Nothing at all reached the sandbox: no fire, no slots, no booking.
        expect((await t.sb.state()).requests.slice(sentBefore)).toEqual([]);

        const read = await a.run(['triggers', 'ls', '--json']);
        expect(read.code, show(read)).toBe(0);
        expect(read.json().triggers.length).toBeGreaterThan(0);
        const readDebug = await a.run(['triggers', 'ls', '--debug'], { SCHEDCTL_RATE: '1000' });
        expect(readDebug.code, show(readDebug)).toBe(0);
      } finally {
        await fx.pg.start();
      }
      // Back up: the same route books the lead once, and a second one finds it.
      const booked = await a.run([...demoRouteFirstArgs(email, 'emea'), '--json']);
      expect(booked.code, show(booked)).toBe(0);
      expect(booked.json()).toMatchObject({ status: 'booked' });
      const again = await machine(t.sb, passwordUrl()).run([...demoRouteFirstArgs(email, 'emea'), '--json']);
      expect(again.code, show(again)).toBe(0);
      expect(again.json()).toMatchObject({ status: 'already_booked' });
      expect(await meetingsOf(email)).toHaveLength(1);
    },
  );
});

describe('the database stopped mid-campaign and restarted', () => {
  it(
    'a bulk route stopped by the outage and run again: one meeting per lead, and every row reported booked is on record for another machine',
    SLOW,
    async () => {
      const leads = Array.from({ length: 6 }, (_, i) => `campaign-${i}@acme.example`);
      const csv = join(tempDir(), 'leads.csv');
      writeFileSync(csv, `email,company,region,slot\n${leads.map((e) => `${e},Acme,emea,first`).join('\n')}\n`);
      const a = machine(t.sb, passwordUrl());
      const b = machine(t.sb, passwordUrl());
      const campaign = ['route', '--file', csv, '--trigger', 'Inbound demo request', '--json'];
      // Each booking's answer comes 1 s late, so the outage lands while the campaign runs.
      await t.sb.fault({ method: 'POST', path: BOOK_PATH, fault: 'delay', delayMs: 1000, count: leads.length });
      const first = a.start(campaign);
      const bookings = async () =>
        (await t.sb.state()).requests.filter((q) => q.method === 'POST' && q.path === BOOK_PATH).length;
      expect(await until(async () => (await bookings()) >= 2)).toBe(true);
      let r1;
      try {
        await fx.pg.stop();
        r1 = await first.done;
      } finally {
        await fx.pg.start();
      }
      await t.sb.clearFaults();
      expect(r1.code, describeRun(r1)).not.toBe(0);
      expect(r1.stdout + r1.stderr, describeRun(r1)).toContain('STATE_UNAVAILABLE');
      const rowsOf = (stdout: string) =>
        stdout
          .split('\n')
          .filter((l) => l.startsWith('{"row"'))
          .map((l) => JSON.parse(l) as { row: number; status: string; meetingId?: string });
      const reportedBooked = rowsOf(r1.stdout).filter((row) => row.status === 'booked');
      expect(reportedBooked.length, describeRun(r1)).toBeGreaterThanOrEqual(1);

      // The same command again, with the database back: it finishes the campaign.
      const again = await a.run(campaign);
      expect(again.code, show(again)).toBe(0);
      for (const lead of leads) expect(await meetingsOf(lead), lead).toHaveLength(1);

      // Nothing reported booked was lost: another machine finds every one of those meetings.
      const listed = await b.run(['meetings', 'ls', '--json']);
      expect(listed.code, show(listed)).toBe(0);
      const ids = new Set(listed.json<Array<{ id: string }>>().map((m) => m.id));
      for (const row of reportedBooked) expect(ids.has(row.meetingId!), JSON.stringify(row)).toBe(true);
      expect(ids.size).toBe(leads.length);
      // What the outage run said it kept on this machine, the next run said it moved in.
      const kinds = (text: string, re: RegExp) => [...text.matchAll(re)].map((m) => m[1]).sort();
      const kept = kinds(r1.stderr, /its (\w+) record is kept on this machine/g);
      const moved = kinds(again.stderr, /note: moved \d+ (\w+) record\(s\) kept on this machine/g);
      expect(moved, `${describeRun(r1)}\n---\n${show(again)}`).toEqual(kept);
    },
  );
});

describe('a network cut between schedctl and the database', () => {
  it(
    'after the booking was sent: booked once, the record kept on this machine (said on stderr), moved in by its next run; then another machine sees the meeting',
    SLOW,
    async () => {
      const email = 'cut@acme.example';
      const proxy = await startTcpProxy({ port: fx.pg.port });
      try {
        const a = machine(t.sb, viaPort(passwordUrl(), proxy.port));
        const b = machine(t.sb, passwordUrl());
        const s = await freshSlots(a, 'intro-call');
        // The booking's answer comes 3 s late (room for a loaded machine): the way to the database is
        // cut (open connections reset, new ones refused) while the booking is in flight.
        await t.sb.fault({ method: 'POST', path: BOOK_PATH, fault: 'delay', delayMs: 3000 });
        const run = a.start([...bookSlotArgs('intro-call', s.slots[1]!, s.reservationId, email), '--json']);
        const inFlight = async () =>
          (await t.sb.state()).requests.some((q) => q.method === 'POST' && q.path === BOOK_PATH);
        expect(await until(inFlight)).toBe(true);
        proxy.cut();
        proxy.block('reset');
        const r = await run.done;

        expect(await meetingsOf(email)).toHaveLength(1);
        // The booking succeeded, so the command does (exit 0, its booking result on stdout), with warnings.
        expect(r.code, describeRun(r)).toBe(0);
        expect(jsonOf(r)?.meeting, describeRun(r)).toMatchObject({ id: (await meetingsOf(email))[0]!.id });
        const spool = join(a.dir, 'team-spool');
        expect(r.stderr, describeRun(r)).toContain('failed after the request was sent');
        expect(r.stderr, describeRun(r)).toContain(`kept on this machine in ${spool}`);
        expect(existsSync(spool) && readdirSync(spool).length > 0).toBe(true);
        // Told exactly what happened: the booking went out, so no message may say "nothing was sent".
        expect(r.stderr, describeRun(r)).not.toContain('nothing was sent');

        // Meanwhile the database has the attempt (written before the send), not its outcome: another
        // machine books nothing and says the outcome is unknown.
        const s2 = await freshSlots(b, 'intro-call');
        const meanwhile = await b.run([...bookSlotArgs('intro-call', s2.slots[3]!, s2.reservationId, email), '--json']);
        expect(meanwhile.code, show(meanwhile)).toBe(5);
        expect(meanwhile.json().error).toMatchObject({ code: 'LEAD_OUTCOME_UNKNOWN' });

        // The way back: machine A's next run moves its record in, and says so.
        proxy.unblock();
        const next = await a.run(['state', 'status', '--json']);
        expect(next.code, show(next)).toBe(0);
        expect(next.stderr).toMatch(/note: moved \d+ .*record\(s\) kept on this machine .* into /);
        expect(next.json().keptOnThisMachine).toBe(0);
        expect(existsSync(spool) ? readdirSync(spool).filter((f) => f.endsWith('.json')) : []).toEqual([]);

        const listed = await b.run(['meetings', 'ls', '--json', '--email', email]);
        expect(listed.code, show(listed)).toBe(0);
        expect(listed.json().map((m: { id: string }) => m.id)).toEqual([(await meetingsOf(email))[0]!.id]);
        const s3 = await freshSlots(b, 'intro-call');
        const other = await b.run([...bookSlotArgs('intro-call', s3.slots[4]!, s3.reservationId, email), '--json']);
        expect(other.code, show(other)).toBe(5);
        expect(other.json().error).toMatchObject({ code: 'LEAD_HAS_MEETING' });
        expect(await meetingsOf(email)).toHaveLength(1);
      } finally {
        await proxy.close();
      }
    },
  );
});

describe('the rate budget, shared by machines', () => {
  const LIMIT = 8;
  const PER_MACHINE = 3;
  // As in test/e2e/rate-budget.test.ts: the client's window is shortened (a test-only knob) and the
  // sandbox's clock runs faster, so that its own minute lasts ~4.6 s, a little less than the client's
  // window: it stays the stricter side. Long enough that the 12 reads (4 machines at once) would
  // all fit in one of the sandbox's windows without a shared budget; a lower limit than the API's
  // 30 keeps the wait short (the rule is the same).
  const CLIENT_WINDOW_MS = 5_000;
  const SPEED = 13;

  it(
    `12 reads on one key spread over four machines at ${LIMIT} per window: the sandbox answers no 429`,
    SLOW,
    async () => {
      const origin = Date.now();
      const sb = await startTestSandbox({
        rateLimit: LIMIT,
        now: () => new Date(origin + (Date.now() - origin) * SPEED),
      });
      try {
        const env = { SCHEDCTL_RATE: String(LIMIT), SCHEDCTL_TEST_RATE_WINDOW_MS: String(CLIENT_WINDOW_MS) };
        const machines = Array.from({ length: 4 }, () => machine(sb, passwordUrl(), env));
        // Each machine runs its reads one after another; the four machines at once.
        const results = (
          await Promise.all(
            machines.map(async (m) => {
              const out = [];
              for (let i = 0; i < PER_MACHINE; i++) out.push(await m.run(['triggers', 'ls', '--json']));
              return out;
            }),
          )
        ).flat();
        for (const r of results) expect(r.code, show(r)).toBe(0);
        const log = (await sb.state()).requests.map((q) => q.status);
        expect(log).toHaveLength(4 * PER_MACHINE);
        expect(log.filter((status) => status === 429)).toHaveLength(0);
        // Reads past the first LIMIT waited for the budget. A machine's own budget would never have
        // made one wait (each machine sends PER_MACHINE < LIMIT): they counted the other machines' reads.
        const waited = results.filter((r) => /waiting for the rate budget/.test(r.stderr));
        expect(waited.length, results.map(show).join('\n---\n')).toBeGreaterThanOrEqual(1);
        expect(waited.length).toBeLessThanOrEqual(4 * PER_MACHINE - LIMIT);
        const rows = await fx.pg.psql('SELECT count(*) FROM schedctl_rate_budgets', db);
        expect(rows).toBe('1');
      } finally {
        await sb.close();
      }
    },
  );

  it(
    "a bulk plan on one machine counts what the others drew: a spent shared budget never reads 'at least 0 s'",
    SLOW,
    async () => {
      const env = { SCHEDCTL_RATE: '3' };
      const [a, b] = [machine(t.sb, passwordUrl(), env), machine(t.sb, passwordUrl(), env)];
      for (let i = 0; i < 3; i++) {
        const r = await a.run(['triggers', 'ls', '--json']);
        expect(r.code, show(r)).toBe(0);
      }
      // One move: one request (a dry run sends none).
      const csv = join(tempDir(), 'moves.csv');
      writeFileSync(csv, 'meeting,email,start,tz\n00000000-0000-4000-8000-000000000000,,2030-01-07T10:00:00Z,\n');
      const plan = (m: Machine, more = {}) => m.run(['reschedule', '--file', csv, '--dry-run', '--json'], more);
      // This machine's own budget is unused: it could go at once.
      const alone = await plan(b, { SCHEDCTL_STATE_URL: 'local' });
      expect(alone.code, show(alone)).toBe(0);
      expect(alone.json().plan.minDurationSeconds).toBe(0);
      // The team's budget holds A's 3 reads: the move waits for the first of them to leave the window.
      const shared = await plan(b);
      expect(shared.code, show(shared)).toBe(0);
      expect(shared.json().plan.minDurationSeconds).toBeGreaterThan(30);
    },
  );
});
