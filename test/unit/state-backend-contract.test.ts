/**
 * The contract every state backend keeps (like Terraform's remote.TestClient and
 * TestRemoteLocks, run by each of its backends): the same suite against this machine's files
 * and a team's PostgreSQL (a throwaway cluster started here). Two "clients" are two State
 * objects over one store, as two processes or machines would have.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forgetSentForTests } from '../../src/api/send-hook.js';
import { openState, type State } from '../../src/state/index.js';
import type { NewAttempt } from '../../src/state/journal.js';
import { CLOCK_SKEW_MS, SlotClaimedError } from '../../src/state/slot-claims.js';
import { leadRecord } from '../../src/state/ledger.js';
import { decide, decideMove } from '../../src/domain/lead-rule.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { buildStateWorker } from '../helpers/state-worker-build.js';

const NOW = new Date('2031-03-01T12:00:00.000Z');
const SCOPE = 'http://127.0.0.1:1#ws:contract';

let pg: TestPostgres;
let worker: string;
const dirs: string[] = [];
beforeAll(async () => {
  [pg, worker] = await Promise.all([startPostgres(), buildStateWorker()]);
}, 60_000);
afterAll(async () => {
  await pg?.destroy();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'state-contract-'));
  dirs.push(d);
  return d;
};

interface Store {
  /** A client of one shared store: its own config dir (a machine) for the team state, the same dir for files. */
  client(opts?: { leadWaitMs?: number }): State;
  /** The env a worker process needs to reach the same store. */
  workerEnv(): NodeJS.ProcessEnv;
  workerDir(): string;
  /** The database restarted (a stall: every session ends), when the store has one. */
  restart?(): Promise<void>;
}

const backends: [string, () => Promise<Store>][] = [
  [
    'local files',
    async () => {
      const dir = tempDir();
      return {
        client: (o = {}) => openState(dir, { now: () => NOW, ...o }),
        workerEnv: () => ({}),
        workerDir: () => dir,
      };
    },
  ],
  [
    'PostgreSQL',
    async () => {
      const url = await pg.createDatabase();
      const workerDir = tempDir();
      return {
        client: (o = {}) => openState(tempDir(), { now: () => NOW, stateUrl: () => url, ...o }),
        workerEnv: () => ({ STATE_URL: url }),
        workerDir: () => workerDir,
        restart: async () => {
          await pg.stop();
          await new Promise((r) => setTimeout(r, 1000));
          await pg.start();
        },
      };
    },
  ],
];

const meetingOf = (id: string, personEmail: string) => ({
  id,
  eventId: 'e-1',
  title: 'Demo',
  status: 'scheduled' as const,
  date: '2031-03-05T10:00:00.000Z',
  duration: 30,
  meetingLink: null,
  conferencingType: 'zoom' as const,
  location: null,
  personEmail,
  additionalAttendees: [],
  cancellationReason: null,
  createdAt: NOW.toISOString(),
  updatedAt: NOW.toISOString(),
});

const attempt = (i: number, email = `lead-${i}@example.com`): NewAttempt => ({
  scope: SCOPE,
  event: 'ev',
  reservationId: `r-${i}`,
  workflowExecutionId: `run-${i}`,
  personEmail: email,
  startTime: '2031-03-05T10:00:00.000Z',
  outcome: 'unknown',
});

describe.each(backends)('the %s backend', (_name, makeStore) => {
  let store: Store;
  beforeAll(async () => {
    store = await makeStore();
  });
  const closing: State[] = [];
  afterAll(async () => {
    await Promise.all(closing.map((s) => s.close()));
  });
  const client = (o?: { leadWaitMs?: number }) => {
    const s = store.client(o);
    closing.push(s);
    return s;
  };

  it('reads what another client wrote, and an empty ledger as empty', async () => {
    const [a, b] = [client(), client()];
    expect(await b.journal.listOpen('another-scope')).toEqual([]);
    const made = await a.journal.add(attempt(0));
    expect((await b.journal.all()).map((e) => e.id)).toContain(made.id);
  });

  it('loses no write when two clients read-modify-write at once', async () => {
    const [a, b] = [client(), client()];
    const before = (await a.journal.all()).length;
    await Promise.all(
      Array.from({ length: 16 }, (_, i) => (i % 2 ? a : b).journal.add(attempt(100 + i, `racer-${i}@example.com`))),
    );
    expect((await b.journal.all()).length).toBe(before + 16);
  });

  it("keeps a meeting's refused move times in its record, lapsed ones dropped, and a move keeps them", async () => {
    const [a, b] = [client(), client()];
    const meeting = {
      id: '6f1d0c1e-0000-4000-8000-00000000c0de',
      eventId: '6f1d0c1e-0000-4000-8000-0000000e7e17',
      title: 'Demo',
      status: 'scheduled' as const,
      date: '2031-03-05T10:00:00.000Z',
      duration: 30,
      meetingLink: null,
      conferencingType: 'zoom' as const,
      location: null,
      personEmail: 'refused@example.com',
      additionalAttendees: [],
      cancellationReason: null,
      createdAt: NOW.toISOString(),
      updatedAt: NOW.toISOString(),
    };
    expect(await a.meetings.recordRefusal(SCOPE, meeting.id, { startTime: 'x', at: 'y' }, NOW)).toBeUndefined();
    await a.meetings.record({ scope: SCOPE, meeting, source: 'booked', event: 'ev' });
    const old = { startTime: '2031-03-05T11:00:00.000Z', at: '2031-03-01T10:00:00.000Z' };
    const fresh = { startTime: '2031-03-05T12:00:00.000Z', at: '2031-03-01T11:59:00.000Z' };
    await a.meetings.recordRefusal(SCOPE, meeting.id, old, new Date('2031-03-01T10:00:00.000Z'));
    await b.meetings.recordRefusal(SCOPE, meeting.id, fresh, NOW);
    expect((await b.meetings.get(SCOPE, meeting.id))?.refused).toEqual([fresh]);
    await b.meetings.recordMove(SCOPE, meeting.id, { ...meeting, date: '2031-03-05T13:00:00.000Z' }, NOW);
    expect((await a.meetings.get(SCOPE, meeting.id))?.refused).toEqual([fresh]);
  });

  it("issue 52 finding 8: a meeting id answered for another lead never overwrites the first lead's record", async () => {
    const [a, b] = [client(), client()];
    const meeting = {
      id: '6f1d0c1e-0000-4000-8000-00000000c1a5',
      eventId: '6f1d0c1e-0000-4000-8000-0000000e7e17',
      title: 'Demo',
      status: 'scheduled' as const,
      date: '2031-03-05T10:00:00.000Z',
      duration: 30,
      meetingLink: null,
      conferencingType: 'zoom' as const,
      location: null,
      personEmail: 'lin@example.com',
      additionalAttendees: [],
      cancellationReason: null,
      createdAt: NOW.toISOString(),
      updatedAt: NOW.toISOString(),
    };
    await a.meetings.record({ scope: SCOPE, meeting, source: 'booked', event: 'ev' });
    const zed = { ...meeting, personEmail: 'zed@example.com', date: '2031-03-06T10:00:00.000Z' };
    await b.meetings.record({ scope: SCOPE, meeting: zed, source: 'booked', event: 'ev' });
    expect(b.meetings.clashes.join('\n')).toContain(`meeting id ${meeting.id} for zed@example.com`);
    expect(b.meetings.clashes.join('\n')).toContain('on record for lin@example.com');
    expect((await a.meetings.get(SCOPE, meeting.id))?.personEmail).toBe('lin@example.com');
    expect((await a.meetings.list(SCOPE, { email: 'lin@example.com' })).map((m) => m.date)).toEqual([meeting.date]);
    expect((await a.meetings.list(SCOPE, { email: 'zed@example.com' })).map((m) => [m.id, m.date])).toEqual([
      [meeting.id, zed.date],
    ]);
    // A move answered for zed's meeting moves zed's record, not lin's.
    await b.meetings.recordMove(SCOPE, meeting.id, { ...zed, date: '2031-03-07T10:00:00.000Z' }, NOW);
    expect((await a.meetings.get(SCOPE, meeting.id))?.date).toBe(meeting.date);
    expect((await a.meetings.findUpcoming(SCOPE, { email: 'zed@example.com' }, NOW)).map((m) => m.date)).toEqual([
      '2031-03-07T10:00:00.000Z',
    ]);
  });

  it('keeps the ledger rules the stores apply: a sent unknown attempt is open until its outcome is known', async () => {
    const [a, b] = [client(), client()];
    const entry = await a.journal.add(attempt(200, 'open@example.com'));
    await a.journal.markSent(entry.id);
    expect((await b.journal.listOpen(SCOPE)).map((e) => e.id)).toContain(entry.id);
    await b.journal.update(entry.id, { outcome: 'booked', meetingId: 'm-200' });
    expect((await a.journal.listOpen(SCOPE)).map((e) => e.id)).not.toContain(entry.id);
    expect((await a.journal.findMeeting(SCOPE, 'm-200'))?.id).toBe(entry.id);
  });

  it('refuses a time another lead holds since the page was fetched (state/slot-claims.ts): in flight, or booked since', async () => {
    const [a, b] = [client(), client()];
    const at = '2031-03-09T09:00:00.000Z';
    const slot = (email: string, event = 'ev-claims'): NewAttempt => ({ ...attempt(900, email), event, startTime: at });
    const page = NOW.getTime() - 1000;
    const ofLead = async (email: string) => (await a.journal.all()).filter((e) => e.personEmail === email);
    // In flight: another lead's attempt at that time, sent, its answer not in.
    const flying = (await a.journal.begin(slot('first@example.com'), { sent: true })).attempt;
    const refused = b.journal.begin(slot('second@example.com'), { sent: true, claimedSince: page });
    await expect(refused).rejects.toBeInstanceOf(SlotClaimedError);
    expect(await ofLead('second@example.com'), 'the refused attempt is taken back').toEqual([]);
    // Not held against: another event's time, the lead's own, a time the run did not pick (no claimedSince).
    for (const [email, event, since] of [
      ['second@example.com', 'ev-other', page],
      ['first@example.com', 'ev-claims', page],
      ['third@example.com', 'ev-claims', undefined],
    ] as const)
      await b.journal.remove(
        (await b.journal.begin(slot(email, event), { sent: true, claimedSince: since })).attempt.id,
      );
    // Booked: its meeting recorded (at NOW) holds the time against pages fetched before it, not after.
    await a.journal.update(flying.id, { outcome: 'booked', meetingId: 'm-900' });
    await a.meetings.record({
      scope: SCOPE,
      meeting: { ...meetingOf('m-900', 'first@example.com'), date: at },
      source: 'booked',
      event: 'ev-claims',
    });
    await expect(b.journal.begin(slot('second@example.com'), { sent: true, claimedSince: page })).rejects.toThrow(
      `${at} is being booked, or was just booked, by another run of this workspace`,
    );
    const later = NOW.getTime() + CLOCK_SKEW_MS + 1;
    const fresh = await b.journal.begin(slot('second@example.com'), { sent: true, claimedSince: later });
    expect((await ofLead('second@example.com')).map((e) => e.id)).toEqual([fresh.attempt.id]);
    // The same event by another name (its aliases): an attempt in flight by its slug holds the time against one by a link id.
    await a.events.learn(SCOPE, 'ev-slug', 'E-claims');
    await a.events.learn(SCOPE, 'ev-link', 'E-claims');
    await a.journal.begin(slot('fourth@example.com', 'ev-slug'), { sent: true });
    await expect(
      b.journal.begin(slot('fifth@example.com', 'ev-link'), { sent: true, claimedSince: page }),
    ).rejects.toBeInstanceOf(SlotClaimedError);
  });

  it("reads a lead's fires and remembered outcomes another client wrote (meetings history), only that lead's", async () => {
    const [a, b] = [client(), client()];
    const email = 'history@example.com';
    const fire = await a.fires.prepare({ scope: SCOPE, triggerId: 't-h', personEmail: email, answersKey: 'k' });
    await a.fires.prepare({ scope: SCOPE, triggerId: 't-h', personEmail: 'other@example.com', answersKey: 'k' });
    await a.fires.answered(fire.id, 'x-h', 'scheduler');
    const outcome = { type: 'scheduler', schedulingLinkId: 'l-h', resolvedHosts: [] };
    await a.outcomes.remember(SCOPE, 't-h', email, {
      executionId: 'x-h',
      outcome: outcome as never,
      firedAt: NOW.toISOString(),
      answersKey: 'k',
    });
    expect((await b.fires.ofLead([SCOPE], ' History@Example.com')).map((f) => [f.id, f.state])).toEqual([
      [fire.id, 'answered'],
    ]);
    expect((await b.outcomes.ofLead([SCOPE], email, ['t-h', 't-other'])).map((o) => o.executionId)).toEqual(['x-h']);
    expect(await b.outcomes.ofLead([SCOPE], email, [])).toEqual([]);
  });

  it('keeps a meeting gone once the API answered 404: not upcoming, its booking proves nothing; a new answer clears it', async () => {
    const [a, b] = [client(), client()];
    const email = 'gone@example.com';
    const entry = await a.journal.add({ ...attempt(300, email), startTime: '2031-03-05T10:00:00.000Z' });
    await a.journal.markSent(entry.id);
    await a.journal.update(entry.id, { outcome: 'booked', meetingId: 'm-300' });
    const meeting = {
      id: 'm-300',
      eventId: 'e-1',
      title: 'Demo',
      status: 'scheduled' as const,
      date: '2031-03-05T10:00:00.000Z',
      duration: 30,
      meetingLink: null,
      conferencingType: 'zoom' as const,
      location: null,
      personEmail: email,
      additionalAttendees: [],
      cancellationReason: null,
      createdAt: NOW.toISOString(),
      updatedAt: NOW.toISOString(),
    };
    await a.meetings.record({ scope: SCOPE, meeting, source: 'booked', event: 'ev' });
    expect((await leadRecord(b, SCOPE, email, NOW)).meetings.map((m) => m.id)).toEqual(['m-300']);

    expect((await b.meetings.markGone(SCOPE, 'm-300', NOW))?.goneAt).toBe(NOW.toISOString());
    await b.journal.markGone(SCOPE, 'm-300', NOW);
    const record = await leadRecord(a, SCOPE, email, NOW);
    expect(record.meetings).toEqual([]);
    expect(record.bookedUnrecorded).toEqual([]);
    // Noted, not forgotten: the lead rule refuses the lead's next booking naming it.
    expect(record.notFound.map((n) => [n.id, n.goneAt])).toEqual([['m-300', NOW.toISOString()]]);
    expect(decide(record, { kind: 'book', event: 'ev', start: NOW }, { rebook: false, aliases: {} }).kind).toBe(
      'not_found',
    );
    expect(await a.journal.findOpenAttempt(SCOPE, { personEmail: email, bookedSince: NOW })).toBeUndefined();
    expect((await a.meetings.get(SCOPE, 'm-300'))?.goneAt).toBe(NOW.toISOString());
    expect(await a.meetings.markGone(SCOPE, 'no-such-meeting', NOW)).toBeUndefined();

    await a.meetings.recordMove(SCOPE, 'm-300', { ...meeting, date: '2031-03-06T10:00:00.000Z' }, NOW);
    expect((await b.meetings.get(SCOPE, 'm-300'))?.goneAt).toBeUndefined();
    expect((await leadRecord(b, SCOPE, email, NOW)).meetings.map((m) => m.id)).toEqual(['m-300']);
  });

  it("keeps a move marked sent until an answer settles it, whichever client reads (the move session's steps)", async () => {
    const [a, b] = [client(), client()];
    const id = '6f1d0c1e-0000-4000-8000-00000000abcd';
    const meeting = { ...meetingOf(id, 'pending@example.com'), date: '2031-03-05T10:00:00.000Z' };
    expect(await a.meetings.markMoveSent(SCOPE, id, { to: 'x', sentAt: 'y' })).toBeUndefined();
    await a.meetings.record({ scope: SCOPE, meeting, source: 'booked', event: 'ev' });
    const pending = { to: '2031-03-05T11:00:00.000Z', sentAt: NOW.toISOString() };
    await a.meetings.markMoveSent(SCOPE, id, pending);
    const held = await b.meetings.get(SCOPE, id);
    expect(held?.pendingMove).toEqual(pending);
    expect(decideMove(held, { kind: 'search', candidates: ['2031-03-05T12:00:00.000Z'] })).toMatchObject({
      candidates: [pending.to, '2031-03-05T12:00:00.000Z'],
    });
    await b.meetings.recordRefusal(SCOPE, id, { startTime: pending.to, at: NOW.toISOString() }, NOW);
    expect((await a.meetings.get(SCOPE, id))?.pendingMove).toBeUndefined();
    await a.meetings.markMoveSent(SCOPE, id, pending);
    await b.meetings.recordMove(SCOPE, id, { ...meeting, date: pending.to }, NOW);
    expect((await a.meetings.get(SCOPE, id))?.pendingMove).toBeUndefined();
    await a.meetings.markMoveSent(SCOPE, id, pending);
    await b.meetings.markGone(SCOPE, id, NOW);
    expect((await a.meetings.get(SCOPE, id))?.pendingMove).toBeUndefined();
    await a.meetings.markMoveSent(SCOPE, id, pending);
    await b.meetings.markMoveSent(SCOPE, id, undefined);
    expect((await a.meetings.get(SCOPE, id))?.pendingMove).toBeUndefined();
  });

  it("two clients racing to book one lead through the session's steps: one sends, the other finds its meeting", async () => {
    const [a, b] = [client({ leadWaitMs: 10_000 }), client({ leadWaitMs: 10_000 })];
    const email = 'race@example.com';
    const intent = { kind: 'book' as const, event: 'ev', start: new Date('2031-03-05T10:00:00.000Z') };
    // Each: hold the lead, read its record once, ask the rule, mark the attempt sent, settle it with its meeting.
    const session = (c: State, n: number) =>
      c.holdLead({ scope: SCOPE, email }, async (held) => {
        const verdict = decide(await leadRecord(c, SCOPE, email, NOW), intent, { rebook: false, aliases: {} });
        if (verdict.kind !== 'send') return verdict.kind;
        await held.assertHeld();
        const { attempt: sent } = await c.journal.begin({ ...attempt(400 + n, email), event: 'ev' }, { sent: true });
        const id = `6f1d0c1e-0000-4000-8000-0000000004${n}0`;
        await c.meetings.record({ scope: SCOPE, meeting: meetingOf(id, email), source: 'booked', event: 'ev' });
        await c.journal.update(sent.id, { outcome: 'booked', meetingId: id, eventId: 'e-1' });
        return verdict.kind;
      });
    const verdicts = await Promise.all([session(a, 1), session(b, 2)]);
    expect(verdicts.sort()).toEqual(['repeat', 'send']);
    expect((await leadRecord(a, SCOPE, email, NOW)).meetings).toHaveLength(1);
  });

  it('lets one client at a time hold a lead; the other waits, told who holds it, then gets it', async () => {
    const [a, b] = [client(), client({ leadWaitMs: 10_000 })];
    const lead = { scope: SCOPE, email: 'held@example.com' };
    const order: string[] = [];
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let entered!: () => void;
    const aIn = new Promise<void>((r) => (entered = r));
    const first = a.holdLead(lead, async (held) => {
      await held.assertHeld();
      order.push('a in');
      entered();
      await released;
      order.push('a out');
    });
    await aIn;
    const waits: unknown[] = [];
    const second = b.holdLead(
      lead,
      async () => {
        order.push('b in');
      },
      (w) => waits.push(w.owner),
    );
    await new Promise((r) => setTimeout(r, 400));
    release();
    await Promise.all([first, second]);
    expect(order).toEqual(['a in', 'a out', 'b in']);
    expect(waits.length).toBeGreaterThan(0);
    expect(waits[0]).toMatchObject({ pid: process.pid });
  });

  it('gives up with LEAD_BUSY naming the holder once the wait is over; nothing ran', async () => {
    const [a, b] = [client(), client({ leadWaitMs: 500 })];
    const lead = { scope: SCOPE, email: 'busy@example.com' };
    let release!: () => void;
    let entered!: () => void;
    const aIn = new Promise<void>((r) => (entered = r));
    const first = a.holdLead(lead, async () => {
      entered();
      await new Promise<void>((r) => (release = r));
    });
    await aIn;
    let ran = false;
    const error = await b
      .holdLead(lead, async () => {
        ran = true;
      })
      .catch((e: unknown) => e);
    release();
    await first;
    expect(ran).toBe(false);
    expect(error).toMatchObject({ code: 'LEAD_BUSY' });
    expect((error as Error).message).toContain(`pid ${process.pid}`);
  });

  it("keeps a bulk run's log: another client reads each row's latest record, ids carried forward", async () => {
    const [a, b] = [client(), client()];
    const id = { key: 'c'.repeat(64), workspace: SCOPE };
    const logs = await (await a.backend()).runLogs();
    expect((await logs.read(id)).size).toBe(0);
    const log = await logs.open(id, { now: () => NOW });
    await log.append({ row: 2, status: 'started', executionId: 'e-2' });
    await log.append({ row: 2, status: 'booked', meetingId: 'm-2' });
    await log.append({ row: 3, status: 'started' });
    await log.close();
    const rows = await (await (await b.backend()).runLogs()).read(id);
    expect(rows.get(2)).toEqual({
      row: 2,
      status: 'booked',
      meetingId: 'm-2',
      executionId: 'e-2',
      at: NOW.toISOString(),
    });
    expect(rows.get(3)?.status).toBe('started');
    expect((await logs.read({ ...id, key: 'd'.repeat(64) })).size).toBe(0);
  });

  it('lets one run at a time hold a run log: a second is refused (RUN_IN_PROGRESS, exit 5), then free once closed', async () => {
    const [a, b] = [client(), client()];
    const id = { key: 'e'.repeat(64), workspace: SCOPE };
    const first = await (await (await a.backend()).runLogs()).open(id);
    const other = await (await b.backend()).runLogs();
    const error = await other.open(id).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'RUN_IN_PROGRESS', exitCode: 5 });
    await first.close();
    const again = await other.open(id);
    await again.append({ row: 1, status: 'started' });
    await again.close();
  });

  // The database restarts under a wait: the holder's session (and lock) ends with it, and the
  // waiter goes on, on a new connection, instead of failing with STATE_UNAVAILABLE.
  it.runIf(_name === 'PostgreSQL')(
    'goes on waiting for a lead while the database restarts, and takes it once it is back',
    async () => {
      const tag = `stall${Math.random().toString(36).slice(2, 8)}`;
      const child = holdInWorker(store, tag);
      await untilHeld(child);
      const waiter = client({ leadWaitMs: 30_000 });
      const lead = { scope: `${tag}@http://127.0.0.1:1`, email: `${tag}@example.com` };
      let got = false;
      const second = waiter.holdLead(lead, async () => {
        got = true;
      });
      await new Promise((r) => setTimeout(r, 300));
      await store.restart!();
      await second;
      expect(got).toBe(true);
      child.kill('SIGKILL');
    },
    60_000,
  );

  it('frees the lead of a killed holder at once', async () => {
    const tag = `killed${Math.random().toString(36).slice(2, 8)}`;
    const child = holdInWorker(store, tag);
    await untilHeld(child);
    const waiter = client({ leadWaitMs: 20_000 });
    // The worker's workspace is `<tag>@http://127.0.0.1:1` (test/helpers/state-worker.ts).
    const lead = { scope: `${tag}@http://127.0.0.1:1`, email: `${tag}@example.com` };
    let got = false;
    const second = waiter.holdLead(lead, async () => {
      got = true;
    });
    await new Promise((r) => setTimeout(r, 300));
    expect(got).toBe(false);
    child.kill('SIGKILL');
    await second;
    expect(got).toBe(true);
  });
});

describe('the PostgreSQL backend, when the database goes away', () => {
  it('refuses with STATE_UNAVAILABLE while it is down, naming it without the password, and works again once it is back', async () => {
    // Nothing was sent in this operation: a failure refuses (the worker's earlier tests may have sent).
    forgetSentForTests();
    const url = await pg.createDatabase();
    const s = openState(tempDir(), { now: () => NOW, stateUrl: () => url });
    await s.journal.add(attempt(300));
    await pg.stop();
    try {
      const fresh = openState(tempDir(), { now: () => NOW, stateUrl: () => url });
      await expect(fresh.assertWritable()).rejects.toMatchObject({ code: 'STATE_UNAVAILABLE', exitCode: 9 });
      await expect(s.journal.add(attempt(301))).rejects.toMatchObject({ code: 'STATE_UNAVAILABLE' });
    } finally {
      await pg.start();
    }
    // The same client reconnects: nothing reported as saved was lost.
    await s.journal.add(attempt(302));
    const ids = (await s.journal.all()).map((e) => e.workflowExecutionId);
    expect(ids).toEqual(expect.arrayContaining(['run-300', 'run-302']));
    expect(ids).not.toContain('run-301');
    await s.close();
  });
});

function holdInWorker(store: Store, tag: string): ChildProcess {
  return spawn(process.execPath, [worker, store.workerDir(), 'hold', tag, '1'], {
    env: { ...process.env, ...store.workerEnv() },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

function untilHeld(child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('"held":true')) resolve();
    });
    child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
    child.on('exit', (code) => reject(new Error(`worker exited ${code}: ${err}`)));
  });
}
