/**
 * Team state on PostgreSQL (issue 24), end to end: several "machines" (each its own config dir)
 * share one team database of a real PostgreSQL started by this file, and one sandbox. The
 * measure is the sandbox's own meetings per lead and the database's rows, not exit codes alone.
 * A fresh database per test (createDatabase): the sandbox reuses ids after its reset.
 *
 * The faults of the way to the database (down, cut mid-booking) and the shared rate budget are
 * in team-state-faults.test.ts.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { bookSlotArgs, demoFireArgs, demoRouteFirstArgs } from '../helpers/args.js';
import { BIN, show, type RunResult } from '../helpers/cli.js';
import { describeRun, jsonOf, sleep } from '../helpers/parallel-run.js';
import { usePostgres } from '../helpers/postgres.js';
import { useSandbox } from '../helpers/sandbox.js';
import { dbName, machine, type Machine } from '../helpers/team.js';

const fx = usePostgres();
const t = useSandbox({ holdSeconds: 60 });
const BOOK_PATH = '/v1/scheduling/meetings';
/** Many CLI runs a test, on a machine shared with other work: room beyond the suite's 30 s. */
const SLOW = { timeout: 90_000 };

let stateUrl = '';
beforeEach(async () => {
  stateUrl = await fx.pg.createDatabase();
});

/** A machine on the test's team database. */
const on = () => machine(t.sb, stateUrl);
/** A machine on its own files (no team state). */
const alone = () => machine(t.sb, undefined);
const sql = (query: string) => fx.pg.psql(query, dbName(stateUrl));

async function meetingsOf(email: string) {
  return (await t.sb.state()).meetings.filter((m) => m.personEmail === email);
}

async function postsTo(path: string): Promise<number> {
  return (await t.sb.state()).requests.filter((r) => r.method === 'POST' && r.path === path).length;
}

/** Free times from now on; tests book from the second one, never seconds away. */
/** A time and a reservation to book with, over HTTP (the sandbox is every machine's). */
const freshSlots = (_m: Machine, event: string) => t.sb.slots(event, 14);

/** The same through the CLI on machine `m`: a read that must work there. */
async function slotsOn(m: Machine, event: string): Promise<{ reservationId: string; slots: string[] }> {
  const r = await m.run(['slots', event, '--json', '--days', '14']);
  expect(r.code, show(r)).toBe(0);
  return r.json();
}

const book = (m: Machine, event: string, slot: string, reservationId: string, email: string, extra: string[] = []) =>
  m.run([...bookSlotArgs(event, slot, reservationId, email), '--json', ...extra]);

async function until(check: () => Promise<boolean>, timeoutMs = 20_000): Promise<boolean> {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await sleep(25)) if (await check()) return true;
  return false;
}

describe('one lead, one meeting, across machines', () => {
  it(
    "a route whose slots request fails after the fire still records the fire's answer and outcome (they ride with a later step): the re-run fires nothing",
    SLOW,
    async () => {
      const email = 'answered-late@acme.example';
      const m = on();
      await t.sb.refuse('POST', '/v1/scheduling/events/*/slots', 500, 'INTERNAL_ERROR', 5);
      const first = await m.run([...demoRouteFirstArgs(email, 'emea'), '--json']);
      expect(first.code, show(first)).not.toBe(0);
      const fires = async () =>
        (await t.sb.state()).requests.filter((r) => r.method === 'POST' && r.path.startsWith('/v1/triggers/')).length;
      expect(await fires(), show(first)).toBe(1);
      await t.sb.clearFaults();
      // The fire was answered and its outcome kept, though no booking step came to carry them.
      expect(await sql(`SELECT state FROM schedctl_fires WHERE lead = '${email}'`)).toMatch(/answered/);
      expect(await sql(`SELECT count(*) FROM schedctl_outcomes WHERE lead = '${email}'`)).toMatch(/1/);
      const again = await m.run([...demoRouteFirstArgs(email, 'emea'), '--json']);
      expect(again.code, show(again)).toBe(0);
      expect(again.stderr).not.toMatch(/unanswered|may have started/i);
      expect(await meetingsOf(email)).toHaveLength(1);
      expect(await fires(), show(again)).toBe(1);
    },
  );

  it(
    "a new lead's fire, marked sent with its reads, ends answered; a re-run, a lead with a record and a refused fire leave no fire looking unanswered",
    SLOW,
    async () => {
      const m = on();
      const firesOf = (email: string) =>
        sql(`SELECT state FROM schedctl_fires WHERE lead = '${email}' ORDER BY seq`).then((out) => out.trim());
      const first = await m.run([...demoRouteFirstArgs('ahead@acme.example', 'emea'), '--json']);
      expect(first.code, show(first)).toBe(0);
      expect(await firesOf('ahead@acme.example')).toMatch(/^answered$/m);
      expect(await firesOf('ahead@acme.example')).not.toMatch(/sent/);
      const again = await m.run([...demoRouteFirstArgs('ahead@acme.example', 'emea'), '--json']);
      expect(again.code, show(again)).toBe(0);
      expect(await firesOf('ahead@acme.example')).not.toMatch(/sent/);
      // A refusal of the fire: nothing started, nothing left marked.
      await t.sb.refuse('POST', '/v1/triggers/*', 400, 'INVALID_REQUEST');
      const refused = await m.run([...demoRouteFirstArgs('refused@acme.example', 'emea'), '--json']);
      expect(refused.code, show(refused)).not.toBe(0);
      expect(await firesOf('refused@acme.example')).toBe('');
      const retried = await m.run([...demoRouteFirstArgs('refused@acme.example', 'emea'), '--json']);
      expect(retried.code, show(retried)).toBe(0);
      expect(retried.stderr).not.toMatch(/unanswered|may have started/i);
      expect(await meetingsOf('refused@acme.example')).toHaveLength(1);
    },
  );

  it(
    'six parallel routes of one lead from three machines book it once; the others answer already_booked or LEAD_HAS_MEETING',
    SLOW,
    async () => {
      const email = 'parallel@acme.example';
      const machines = [on(), on(), on()];
      const runs = machines.flatMap((m) => [0, 1].map(() => m.start([...demoRouteFirstArgs(email, 'emea'), '--json'])));
      const results = await Promise.all(runs.map((r) => r.done));
      const all = results.map(describeRun).join('\n---\n');
      const docs = results.map(jsonOf);
      const booked = results.filter((r, i) => r.code === 0 && docs[i]?.status === 'booked');
      expect(booked, all).toHaveLength(1);
      for (const [i, r] of results.entries()) {
        if (booked.includes(r)) continue;
        const d = docs[i];
        const ok =
          (r.code === 0 && d?.status === 'already_booked') || (r.code === 5 && d?.error?.code === 'LEAD_HAS_MEETING');
        expect(ok, all).toBe(true);
      }
      expect(await meetingsOf(email)).toHaveLength(1);
      expect(await postsTo(BOOK_PATH)).toBe(1);
    },
  );

  it(
    'a lost answer on one machine is refused from another (LEAD_OUTCOME_UNKNOWN, nothing sent); the hint resolves it there',
    SLOW,
    async () => {
      const email = 'lost@acme.example';
      const a = on();
      const b = on();
      await t.sb.fault({ method: 'POST', path: BOOK_PATH, fault: 'drop-after-commit' });
      const s = await freshSlots(a, 'intro-call');
      const first = await book(a, 'intro-call', s.slots[1]!, s.reservationId, email);
      expect(first.code, show(first)).toBe(7);
      expect(await meetingsOf(email)).toHaveLength(1);

      const s2 = await freshSlots(b, 'intro-call');
      const other = await book(b, 'intro-call', s2.slots[3]!, s2.reservationId, email);
      expect(other.code, show(other)).toBe(5);
      expect(other.json().error).toMatchObject({ code: 'LEAD_OUTCOME_UNKNOWN' });
      const hint: string = other.json().error.hint;
      expect(hint).toContain(`--reservation ${s.reservationId}`);
      const routed = await b.run([...demoRouteFirstArgs(email, 'apac'), '--json']);
      expect(routed.code, show(routed)).toBe(5);
      expect(routed.json().error).toMatchObject({ code: 'LEAD_OUTCOME_UNKNOWN' });
      expect(await postsTo(BOOK_PATH)).toBe(1);

      // As the hint says: machine A's identical command, run on machine B.
      const same = await book(b, 'intro-call', s.slots[1]!, s.reservationId, email);
      expect(same.code, show(same)).toBe(0);
      expect(same.json()).toMatchObject({ status: 'already_booked' });
      // Known now, on every machine: another booking is a meeting the lead has.
      const s3 = await freshSlots(a, 'intro-call');
      const after = await book(a, 'intro-call', s3.slots[4]!, s3.reservationId, email);
      expect(after.code, show(after)).toBe(5);
      expect(after.json().error).toMatchObject({ code: 'LEAD_HAS_MEETING' });
      expect(await meetingsOf(email)).toHaveLength(1);
    },
  );

  it(
    'a meeting booked on one machine is listed (with who booked it) and moved from another; the first sees the move',
    SLOW,
    async () => {
      const email = 'move-me@acme.example';
      const a = on();
      const b = on();
      const s = await freshSlots(a, 'quarterly-review');
      const booked = await book(a, 'quarterly-review', s.slots[1]!, s.reservationId, email);
      expect(booked.code, show(booked)).toBe(0);
      const id: string = booked.json().meeting.id;

      const listed = await b.run(['meetings', 'ls', '--json']);
      expect(listed.code, show(listed)).toBe(0);
      const rows = listed.json<Array<{ id: string; bookedBy?: string; personEmail?: string }>>();
      const row = rows.find((m) => m.id === id);
      expect(row, show(listed)).toBeDefined();
      expect(row!.bookedBy).toMatch(/^[^@\s]+@[^@\s]+$/);

      const target = s.slots.at(-1)!;
      const moved = await b.run(['reschedule', '--email', email, '--start', target, '--json']);
      expect(moved.code, show(moved)).toBe(0);
      expect(moved.json().meeting).toMatchObject({ id, date: target });
      expect((await meetingsOf(email)).map((m) => m.date)).toEqual([target]);

      const seen = await a.run(['meetings', 'show', id, '--json']);
      expect(seen.code, show(seen)).toBe(0);
      const doc = seen.json();
      expect(doc).toMatchObject({ id, date: target, status: 'rescheduled', bookedBy: row!.bookedBy });
      expect(doc.history).toEqual([expect.objectContaining({ from: s.slots[1], to: target, by: row!.bookedBy })]);
    },
  );
});

describe('state push', () => {
  it(
    "moves a machine's local ledger in once (a second push moves 0); another machine then sees the lead's meeting",
    SLOW,
    async () => {
      const email = 'pushed@acme.example';
      const a = alone();
      const s = await freshSlots(a, 'intro-call');
      const booked = await book(a, 'intro-call', s.slots[1]!, s.reservationId, email);
      expect(booked.code, show(booked)).toBe(0);

      const push = (m: Machine) => m.run(['state', 'push', '--json'], { SCHEDCTL_STATE_URL: stateUrl });
      const first = await push(a);
      expect(first.code, show(first)).toBe(0);
      const one = first.json();
      expect(one).toMatchObject({ from: a.dir, to: stateUrl });
      expect(one.moved.meetings).toBe(1);
      const movedFirst = Object.values<number>(one.moved).reduce((x, y) => x + y, 0);
      expect(movedFirst).toBeGreaterThan(1);

      const second = await push(a);
      expect(second.code, show(second)).toBe(0);
      const two = second.json();
      for (const n of Object.values<number>(two.moved)) expect(n).toBe(0);
      expect(Object.values<number>(two.alreadyThere).reduce((x, y) => x + y, 0)).toBe(movedFirst);

      const b = on();
      const listed = await b.run(['meetings', 'ls', '--json', '--email', email]);
      expect(listed.code, show(listed)).toBe(0);
      expect(listed.json<Array<{ id: string }>>().map((m) => m.id)).toEqual([booked.json().meeting.id]);
      const s2 = await freshSlots(b, 'intro-call');
      const again = await book(b, 'intro-call', s2.slots[3]!, s2.reservationId, email);
      expect(again.code, show(again)).toBe(5);
      expect(again.json().error).toMatchObject({ code: 'LEAD_HAS_MEETING' });
      expect(await meetingsOf(email)).toHaveLength(1);
    },
  );
});

/** Every record of the ledger's tables, one line each. */
const LEDGER_DUMP = `SELECT 'attempts', id, body FROM schedctl_attempts
       UNION ALL SELECT 'meetings', id, body FROM schedctl_meetings
       UNION ALL SELECT 'outcomes', execution_id, body FROM schedctl_outcomes
       UNION ALL SELECT 'fires', id, body FROM schedctl_fires
       UNION ALL SELECT 'aliases', alias, event_id FROM schedctl_event_aliases`;

describe('the schema version', () => {
  it(
    'a newer schema_version is refused by every ledger command (exit 9, the version, "upgrade"); nothing is written or sent',
    SLOW,
    async () => {
      const a = on();
      const email = 'schema@acme.example';
      const s = await freshSlots(a, 'intro-call');
      const booked = await book(a, 'intro-call', s.slots[1]!, s.reservationId, email);
      expect(booked.code, show(booked)).toBe(0);
      await sql(`UPDATE schedctl_meta SET value = '99' WHERE key = 'schema_version'`);
      const snapshot = () =>
        sql(`${LEDGER_DUMP} UNION ALL SELECT 'meta', key, value FROM schedctl_meta ORDER BY 1, 2, 3`);
      const before = await snapshot();
      const b = on();
      const s2 = await slotsOn(b, 'intro-call'); // a read: no ledger needed
      const postsBefore = (await t.sb.state()).requests.filter((r) => r.method !== 'GET').length;
      const runs: RunResult[] = [
        await b.run([...demoRouteFirstArgs('schema-2@acme.example', 'emea'), '--json']),
        await book(b, 'intro-call', s2.slots[3]!, s2.reservationId, 'schema-3@acme.example'),
        await b.run([...demoFireArgs('schema-4@acme.example', 'emea'), '--json']),
        await b.run(['meetings', 'ls', '--json']),
        await b.run(['state', 'status', '--json']),
        await b.run(['state', 'unlock', email, '--force', '--json']),
        await b.run(['state', 'push', '--json']),
        await a.run(['reschedule', booked.json().meeting.id, '--start', s.slots.at(-1)!, '--json']),
      ];
      for (const r of runs) {
        expect(r.code, show(r)).toBe(9);
        const error = r.json().error;
        expect(error.code, show(r)).toBe('STATE_UNAVAILABLE');
        expect(error.message, show(r)).toContain('99');
        expect(error.hint, show(r)).toContain('upgrade');
      }
      expect(await snapshot()).toBe(before);
      expect((await t.sb.state()).requests.filter((r) => r.method !== 'GET').length).toBe(postsBefore);
      expect(await meetingsOf(email)).toHaveLength(1);
    },
  );
});

describe('what the database holds', () => {
  it('no API key in any table after routes, fires, moves and budgeted reads with both keys', SLOW, async () => {
    const a = on();
    const b = on();
    const budgeted = { SCHEDCTL_RATE: '1000' };
    expect((await a.run([...demoRouteFirstArgs('keys-1@acme.example', 'emea'), '--json'], budgeted)).code).toBe(0);
    expect((await b.run([...demoFireArgs('keys-2@acme.example', 'apac'), '--json'], budgeted)).code).toBe(0);
    const s = await freshSlots(b, 'quarterly-review');
    const booked = await book(b, 'quarterly-review', s.slots[1]!, s.reservationId, 'keys-3@acme.example');
    expect(booked.code, show(booked)).toBe(0);
    const moved = await a.run(['reschedule', booked.json().meeting.id, '--start', s.slots[2]!, '--json'], budgeted);
    expect(moved.code, show(moved)).toBe(0);
    const ro = await b.run(['triggers', 'ls', '--json'], { ...budgeted, SCHEDCTL_API_KEY: t.sb.keys.readOnly });
    expect(ro.code, show(ro)).toBe(0);

    const budgets = await sql('SELECT budget_id FROM schedctl_rate_budgets');
    expect(budgets.split('\n').filter(Boolean).length).toBeGreaterThanOrEqual(2); // one per key
    const dump = await sql(
      `${LEDGER_DUMP}
       UNION ALL SELECT 'budgets', budget_id, state::text FROM schedctl_rate_budgets
       UNION ALL SELECT 'locks', name, owner::text FROM schedctl_locks
       UNION ALL SELECT 'meta', key, value FROM schedctl_meta`,
    );
    expect(dump).toContain('keys-3@acme.example'); // the dump is the ledger's
    for (const key of [t.sb.keys.full, t.sb.keys.readOnly]) {
      expect(dump.includes(key)).toBe(false);
      // Not even a part of it long enough to mean something (e.g. a key's tail without its prefix).
      expect(dump.includes(key.slice(-16))).toBe(false);
    }
  });
});

describe('state status and state unlock', () => {
  it(
    'status --json names the holder of a lead lock; unlock without a terminal needs --force; with it the lock is gone and the holder sends nothing',
    SLOW,
    async () => {
      const email = 'held@acme.example';
      const a = on();
      const b = on();
      const idle = await b.run(['state', 'status', '--json']);
      expect(idle.code, show(idle)).toBe(0);
      expect(idle.json()).toEqual({
        backend: 'postgres',
        location: stateUrl,
        schemaVersion: 4,
        counts: { journal: 0, meetings: 0, outcomes: 0, fires: 0, events: 0, rateBudgets: 0, runRecords: 0 },
        locks: [],
        keptOnThisMachine: 0,
        // The key in use, not on record until a command opens the ledger for it (status reads only).
        workspace: expect.objectContaining({
          id: expect.stringMatching(/#key:[0-9a-f]{16}$/),
          recorded: false,
          keys: [],
        }),
      });

      // The holder's slots answer comes late; it is stopped (SIGSTOP) while it waits for it, holding the lead.
      await t.sb.fault({ method: 'POST', path: '/v1/scheduling/events/*/slots', fault: 'delay', delayMs: 1500 });
      const holder = a.start([...demoRouteFirstArgs(email, 'emea'), '--json']);
      const holding = async () =>
        (await sql(`SELECT owner->>'pid' FROM schedctl_locks`)) === String(holder.child.pid) &&
        (await t.sb.state()).requests.some((q) => q.path.endsWith('/slots'));
      expect(await until(holding)).toBe(true);
      holder.child.kill('SIGSTOP');
      try {
        const status = await b.run(['state', 'status', '--json']);
        expect(status.code, show(status)).toBe(0);
        const doc = status.json();
        expect(doc.locks).toHaveLength(1);
        expect(doc.locks[0]).toMatchObject({ subject: 'lead', of: email, pid: holder.child.pid });
        expect(Object.keys(doc.locks[0]).sort()).toEqual(
          ['command', 'host', 'of', 'pid', 'since', 'subject', 'user', 'workspace'].sort(),
        );
        expect(doc.locks[0].command).toContain(`route --trigger`);
        expect(doc.locks[0].user).toEqual(expect.any(String));
        expect(doc.locks[0].host).toEqual(expect.any(String));
        const human = await b.run(['state', 'status']);
        expect(human.code, show(human)).toBe(0);
        expect(human.stdout).toContain(
          `lead ${email}: ${doc.locks[0].user}@${doc.locks[0].host} pid ${holder.child.pid}`,
        );

        const refused = await b.run(['state', 'unlock', email]);
        expect(refused.code, show(refused)).toBe(2);
        expect(refused.stderr).toContain('--force');
        expect((await b.run(['state', 'status', '--json'])).json().locks).toHaveLength(1);

        const released = await b.run(['state', 'unlock', email, '--force', '--json']);
        expect(released.code, show(released)).toBe(0);
        expect(released.json()).toMatchObject({
          released: { subject: 'lead', of: email, holder: { pid: holder.child.pid } },
        });
        const after = await b.run(['state', 'status', '--json']);
        expect(after.code, show(after)).toBe(0);
        expect(after.json().locks).toEqual([]);
        const none = await b.run(['state', 'unlock', email, '--force']);
        expect(none.code, show(none)).toBe(4);
      } finally {
        holder.child.kill('SIGCONT');
      }
      // Cut off from the team state, the holder sends no booking.
      const ended = await holder.done;
      expect(ended.code, describeRun(ended)).not.toBe(0);
      expect(await meetingsOf(email)).toHaveLength(0);
      expect(await postsTo(BOOK_PATH)).toBe(0);
    },
  );
});

describe("the PostgreSQL client's code cache (state/postgres/load-pg.ts)", () => {
  /** The budget draws from the database: the client connects and queries. */
  const budgeted = { SCHEDCTL_RATE: '30' };

  it('is made by the first run, used by the next, made again when damaged; 0600 in a 0700 directory', async () => {
    const m = on();
    const dir = join(m.dir, '.cache', 'schedctl'); // HOME is the machine's dir; no XDG_CACHE_HOME
    const first = await m.run(['triggers', 'ls', '--json'], budgeted);
    expect(first.code, show(first)).toBe(0);
    const made = readdirSync(dir);
    expect(made).toHaveLength(1);
    expect(made[0]).toMatch(/^pg-[0-9a-f]{16}-v\d+\.\d+\.\d+-\w+\.v8$/);
    // Named by the bundle's content, hashed by the build (not at each start): another pg.cjs, another cache.
    const bundle = readFileSync(join(dirname(realpathSync(BIN)), '..', 'dist', 'pg.cjs'));
    expect(made[0]).toContain(`pg-${createHash('sha256').update(bundle).digest('hex').slice(0, 16)}-`);
    const file = join(dir, made[0]!);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const bytes = readFileSync(file);

    const second = await m.run(['triggers', 'ls', '--json'], budgeted);
    expect(second.code, show(second)).toBe(0);
    expect(readFileSync(file).equals(bytes), 'a usable cache is not written again').toBe(true);

    writeFileSync(file, 'not a code cache');
    const damaged = await m.run(['triggers', 'ls', '--json'], budgeted);
    expect(damaged.code, show(damaged)).toBe(0);
    expect(damaged.stderr).toBe('');
    expect(readFileSync(file).length).toBeGreaterThan(1000);
    expect(readdirSync(dir)).toEqual(made); // no partial file left beside it
  });

  it('a cache directory that cannot be made changes nothing: the command works and says nothing of it', async () => {
    const m = on();
    const notADir = join(m.dir, 'cache-is-a-file');
    writeFileSync(notADir, '');
    const r = await m.run(['triggers', 'ls', '--json'], { ...budgeted, XDG_CACHE_HOME: notADir });
    expect(r.code, show(r)).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.json().triggers.length).toBeGreaterThan(0);
  });
});
