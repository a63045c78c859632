/**
 * The ledger's questions as the tables answer them (SQLite, in-process): what each narrowing of
 * a look-up lets through and keeps out, what a write keeps of what was there, and what pruning
 * takes. The rules' pure parts (findPrior, otherOfSameBooking, overAt) are asked directly.
 */
import { mkdtempSync } from 'node:fs';
import { hostname } from 'node:os';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Meeting } from '../../src/api/schemas.js';
import { meetingFixture } from '../helpers/meeting.js';
import { openState, type JournalEntry, type State } from '../../src/state/index.js';
import { findPrior, Journal, msOf, otherOfSameBooking, putAttempt } from '../../src/state/journal.js';
import { currentUser } from '../../src/state/lead-lock.js';
import { Fires } from '../../src/state/fires.js';
import { FireAnswers } from '../../src/state/together.js';
import { Outcomes } from '../../src/state/outcomes.js';
import { Meetings, overAt } from '../../src/state/meetings.js';
import type { Sql } from '../../src/state/sql/types.js';
import { countTables, importDocuments } from '../../src/state/sql/documents.js';

const NOW = new Date('2031-03-01T12:00:00.000Z');
const S = 'https://api.example.com#key:0123456789abcdef';
const OTHER = 'https://api.example.com#key:fedcba9876543210';
const DAY = 86_400_000;

let state: State;
let clock: Date;
beforeEach(() => {
  clock = NOW;
  state = openState(mkdtempSync(join(tmpdir(), 'ledger-queries-')), { now: () => clock });
});

const entry = (over: Partial<JournalEntry> = {}): JournalEntry => ({
  id: 'e',
  scope: S,
  event: 'intro-call',
  reservationId: 'r1',
  workflowExecutionId: null,
  personEmail: 'lead@acme.example',
  startTime: '2031-03-02T10:00:00.000Z',
  attemptedAt: NOW.toISOString(),
  outcome: 'unknown',
  sentAt: NOW.toISOString(),
  ...over,
});
const meeting = (id: string, over: Partial<Meeting> = {}): Meeting => meetingFixture(id, NOW, over);
const sql = async () => (await state.backend()).sql();

describe('findPrior: the earlier attempt of this booking', () => {
  const by = { reservationId: 'r1', personEmail: 'Lead@Acme.example', startTime: '2031-03-02T10:00:00.000Z' };
  it('is one of this workspace, this reservation or run, this lead; the latest', () => {
    const a = entry({ id: 'a' });
    const b = entry({ id: 'b' });
    expect(findPrior([a, b], S, by)?.id).toBe('b');
    expect(findPrior([entry({ scope: OTHER })], S, by)).toBeUndefined();
    expect(findPrior([entry({ reservationId: 'r2' })], S, by)).toBeUndefined();
    expect(findPrior([entry({ personEmail: 'other@acme.example' })], S, by)).toBeUndefined();
    const run = entry({ reservationId: 'r9', workflowExecutionId: 'x1' });
    expect(findPrior([run], S, { ...by, reservationId: 'r2', workflowExecutionId: 'x1' })).toBe(run);
    expect(findPrior([run], S, { ...by, reservationId: 'r2', workflowExecutionId: 'x2' })).toBeUndefined();
    expect(findPrior([run], S, { ...by, reservationId: 'r2', workflowExecutionId: null })).toBeUndefined();
    expect(findPrior([entry({ reservationId: 'r9' })], S, { personEmail: by.personEmail })).toBeUndefined();
  });
  it('skips an attempt never sent; takes a booked one only for the same time', () => {
    expect(findPrior([entry({ sentAt: null })], S, by)).toBeUndefined();
    const booked = entry({ outcome: 'booked', meetingId: 'm' });
    expect(findPrior([booked], S, by)).toBe(booked);
    expect(findPrior([booked], S, { ...by, startTime: '2031-03-02T11:00:00.000Z' })).toBeUndefined();
    expect(findPrior([booked], S, { reservationId: 'r1' })).toBeUndefined();
    expect(findPrior([entry()], S, { reservationId: 'r1' })?.id).toBe('e');
  });
});

describe('otherOfSameBooking and the instants kept', () => {
  it('is another sent attempt of the same lead', () => {
    const prior = entry({ id: 'p' });
    expect(otherOfSameBooking(prior, entry({ id: 'q', personEmail: 'LEAD@acme.example' }))).toBe(true);
    expect(otherOfSameBooking(prior, prior)).toBe(false);
    expect(otherOfSameBooking(prior, entry({ id: 'q', sentAt: null }))).toBe(false);
    expect(otherOfSameBooking(prior, entry({ id: 'q', personEmail: 'other@acme.example' }))).toBe(false);
  });
  it('keeps epoch ms, or null for a date that does not read; a meeting is over at its end, or after its start', () => {
    expect(msOf('2031-03-02T10:00:00.000Z')).toBe(Date.parse('2031-03-02T10:00:00.000Z'));
    expect(msOf('yesterday-ish')).toBeNull();
    expect(msOf(undefined)).toBeNull();
    const start = Date.parse('2031-03-02T10:00:00.000Z');
    expect(overAt({ date: '2031-03-02T10:00:00.000Z', duration: 30 })).toBe(start + 30 * 60_000);
    expect(overAt({ date: '2031-03-02T10:00:00.000Z', duration: null })).toBe(start + 1);
    expect(overAt({ date: 'soon', duration: 30 })).toBeNull();
  });
});

describe('meetings: the look-ups of meetings ls and reschedule --email', () => {
  beforeEach(async () => {
    const rec = (m: Meeting, event = 'intro-call') =>
      state.meetings.record({ scope: S, meeting: m, source: 'booked', event });
    await rec(meeting('m1', { date: '2031-03-01T09:00:00.000Z' }));
    await rec(meeting('m2', { date: '2031-03-03T10:00:00.000Z', personEmail: 'Other@acme.example' }), 'demo');
    await rec(meeting('m3', { date: '2031-03-02T10:00:00.000Z' }));
    await rec(meeting('m0', { date: '2031-03-02T10:00:00.000Z' }));
    await state.meetings.record({ scope: OTHER, meeting: meeting('x'), source: 'booked', event: 'intro-call' });
  });
  const ids = async (q: Parameters<State['meetings']['list']>[1]) => (await state.meetings.list(S, q)).map((m) => m.id);

  it('narrows by each condition alone, earliest first (then by id)', async () => {
    expect(await ids({})).toEqual(['m1', 'm0', 'm3', 'm2']);
    expect(await ids({ email: ' OTHER@acme.example ' })).toEqual(['m2']);
    expect(await ids({ event: 'demo' })).toEqual(['m2']);
    expect(await ids({ event: '11111111-1111-4111-8111-111111111111' })).toEqual(['m1', 'm0', 'm3', 'm2']);
    expect(await ids({ from: new Date('2031-03-02T10:00:00.000Z') })).toEqual(['m0', 'm3', 'm2']);
    expect(await ids({ to: new Date('2031-03-02T10:00:00.000Z') })).toEqual(['m1']);
    expect(await ids({ upcomingFrom: new Date('2031-03-02T10:29:59.999Z') })).toEqual(['m0', 'm3', 'm2']);
    expect(await ids({ upcomingFrom: new Date('2031-03-02T10:30:00.000Z') })).toEqual(['m2']);
  });

  it('stops at a limit: the first in time order (then by id), narrowed or not', async () => {
    expect(await ids({ limit: 2 })).toEqual(['m1', 'm0']);
    expect(await ids({ limit: 3 })).toEqual(['m1', 'm0', 'm3']);
    expect(await ids({ limit: 9 })).toEqual(['m1', 'm0', 'm3', 'm2']);
    expect(await ids({ limit: 1, from: new Date('2031-03-02T10:00:00.000Z') })).toEqual(['m0']);
    expect(await ids({ limit: 1, event: 'demo' })).toEqual(['m2']);
    // Narrowed by the lead or by "not over", the few rows are cut after the query.
    expect(await ids({ limit: 1, email: 'lead@acme.example' })).toEqual(['m1']);
    expect(await ids({ limit: 2, upcomingFrom: new Date('2031-03-02T10:29:59.999Z') })).toEqual(['m0', 'm3']);
    // Several workspaces at once (a lead's record and the URL's unattributed records).
    expect((await state.meetings.list([S, OTHER], { email: 'lead@acme.example' })).map((m) => m.id)).toEqual([
      'm1',
      'm0',
      'm3',
      'x',
    ]);
  });

  it('finds a lead upcoming meetings only: not canceled, by trigger and event when asked', async () => {
    const at = new Date('2031-03-01T12:00:00.000Z');
    expect((await state.meetings.findUpcoming(S, { email: 'LEAD@acme.example' }, at)).map((m) => m.id)).toEqual([
      'm0',
      'm3',
    ]);
    expect(await state.meetings.findUpcoming(S, { email: 'lead@acme.example', triggerId: 't' }, at)).toEqual([]);
    expect(await state.meetings.findUpcoming(S, { email: 'lead@acme.example', event: 'demo' }, at)).toEqual([]);
    await state.meetings.recordMove(S, 'm3', meeting('m3', { status: 'canceled' }), NOW);
    expect((await state.meetings.findUpcoming(S, { email: 'lead@acme.example' }, at)).map((m) => m.id)).toEqual(['m0']);
    // Without a time given, the store's clock.
    clock = new Date('2031-03-05T00:00:00.000Z');
    expect(await state.meetings.findUpcoming(S, { email: 'lead@acme.example' })).toEqual([]);
  });

  it('keeps who booked it and its history; a move adds to the history only when the time changed', async () => {
    const first = await state.meetings.get(S, 'm1');
    expect(first?.bookedBy).toBe(`${currentUser()}@${hostname()}`);
    expect(first?.history).toEqual([]);
    const again = await state.meetings.record({
      scope: S,
      meeting: meeting('m1', { title: 'New', date: '2031-03-01T09:00:00.000Z' }),
      source: 'recovered',
      event: 'x',
    });
    expect(again).toMatchObject({ title: 'New', source: 'booked', bookedBy: first?.bookedBy, history: [], event: 'x' });
    const same = await state.meetings.recordMove(S, 'm1', meeting('m1', { date: '2031-03-01T09:00:00.000Z' }), NOW);
    expect(same.history).toEqual([]);
    const moved = await state.meetings.recordMove(S, 'm1', meeting('m1', { date: '2031-03-04T09:00:00.000Z' }), NOW);
    expect(moved.history).toEqual([
      { from: '2031-03-01T09:00:00.000Z', to: '2031-03-04T09:00:00.000Z', at: NOW.toISOString(), by: first?.bookedBy },
    ]);
    const unknown = await state.meetings.recordMove(S, 'mz', meeting('mz'), '2031-03-01T13:00:00.000Z');
    expect(unknown).toMatchObject({
      source: 'rescheduled',
      event: meeting('mz').eventId,
      recordedAt: '2031-03-01T13:00:00.000Z',
    });
    expect(unknown.history).toEqual([{ to: meeting('mz').date, at: '2031-03-01T13:00:00.000Z', by: first?.bookedBy }]);
  });
});

describe('the journal: what a write keeps and what pruning takes', () => {
  it('prunes attempts settled or unresolved over 90 days ago, never booked ones, nor undated ones', async () => {
    const db = await sql();
    const old = new Date(NOW.getTime() - 91 * DAY).toISOString();
    const recent = new Date(NOW.getTime() - 89 * DAY).toISOString();
    await putAttempt(db, entry({ id: 'old', reservationId: 'o', attemptedAt: old }));
    await putAttempt(db, entry({ id: 'old-updated', reservationId: 'u', attemptedAt: old, updatedAt: recent }));
    await putAttempt(
      db,
      entry({ id: 'booked', reservationId: 'b', attemptedAt: old, outcome: 'booked', meetingId: 'm' }),
    );
    await putAttempt(db, entry({ id: 'undated', reservationId: 'd', attemptedAt: 'yesterday-ish' }));
    await putAttempt(db, entry({ id: 'recent', reservationId: 'n', attemptedAt: recent }));
    await state.journal.add(entry({ reservationId: 'new' }));
    expect((await state.journal.all()).map((e) => e.id).slice(0, 4)).toEqual([
      'old-updated',
      'booked',
      'undated',
      'recent',
    ]);
  });

  it('keeps a known outcome against an unknown copy, and a row as it is when asked to keep', async () => {
    const db = await sql();
    await putAttempt(db, entry({ outcome: 'booked', meetingId: 'm' }));
    await putAttempt(db, entry({ outcome: 'unknown' }));
    expect((await state.journal.all())[0]).toMatchObject({ outcome: 'booked', meetingId: 'm' });
    expect(await putAttempt(db, entry({ outcome: 'already_booked' }), true)).toBe(0);
    expect((await state.journal.all())[0]).toMatchObject({ outcome: 'booked' });
    expect(await putAttempt(db, entry({ outcome: 'already_booked' }))).toBe(1);
    expect((await state.journal.all())[0]).toMatchObject({ outcome: 'already_booked' });
  });

  it('lists the open and the recovered bookings of a workspace, and a meeting booked through it', async () => {
    const db = await sql();
    await putAttempt(db, entry({ id: 'open' }));
    await putAttempt(db, entry({ id: 'unsent', sentAt: null }));
    await putAttempt(db, entry({ id: 'recovered', outcome: 'already_booked' }));
    await putAttempt(db, entry({ id: 'known', outcome: 'already_booked', meetingId: 'm9' }));
    await putAttempt(db, entry({ id: 'elsewhere', scope: OTHER }));
    expect((await state.journal.listOpen(S)).map((e) => e.id)).toEqual(['open']);
    expect((await state.journal.recovered(S)).map((e) => e.id)).toEqual(['recovered']);
    expect((await state.journal.findMeeting(S, 'm9'))?.id).toBe('known');
    expect(await state.journal.findMeeting(OTHER, 'm9')).toBeUndefined();
    expect((await state.journal.ofLead(S, ' LEAD@acme.example')).map((e) => e.id)).toEqual([
      'open',
      'unsent',
      'recovered',
      'known',
    ]);
  });

  it('moves documents in with keep: a record already there stays; counts every table', async () => {
    const db = await sql();
    await putAttempt(db, entry({ id: 'a', outcome: 'booked', meetingId: 'm' }));
    const written = await importDocuments(
      db,
      { journal: { entries: [entry({ id: 'a' }), entry({ id: 'b' })] }, events: { aliases: { [`${S} demo`]: 'ev' } } },
      true,
    );
    expect(written).toEqual({ journal: 1, meetings: 0, outcomes: 0, fires: 0, events: 1 });
    expect(await countTables(db)).toEqual({ journal: 2, meetings: 0, outcomes: 0, fires: 0, events: 1 });
    expect((await state.journal.all())[0]).toMatchObject({ id: 'a', outcome: 'booked' });
    expect(await state.events.of(S, ['demo'])).toEqual({ demo: 'ev' });
  });
});

describe('what the stores ask of the database (each statement a round trip on a team state)', () => {
  type Asked = { sql: string; params: readonly unknown[]; step?: true } | { transaction: true };
  let asked: Asked[];
  const recording = (inner: Sql): Sql => ({
    where: inner.where,
    all: (text, params = []) => (asked.push({ sql: text, params }), inner.all(text, params)),
    run: (text, params = []) => (asked.push({ sql: text, params }), inner.run(text, params)),
    step: (statements) => {
      for (const [text, params = []] of statements) asked.push({ sql: text, params, step: true });
      return inner.step(statements);
    },
    transaction: (work) => {
      asked.push({ transaction: true });
      return inner.transaction((tx) => work(recording(tx)));
    },
  });
  const stores = async () => {
    asked = [];
    const db = recording(await sql());
    const fireAnswers = new FireAnswers();
    fireAnswers.holds = true;
    return {
      meetings: new Meetings(
        async () => db,
        () => clock,
        () => db.where,
      ),
      journal: new Journal(
        async () => db,
        () => clock,
        () => db.where,
        fireAnswers,
      ),
      fires: new Fires(
        async () => db,
        () => clock,
      ),
      outcomes: new Outcomes(
        async () => db,
        () => clock,
        () => db.where,
        fireAnswers,
      ),
      fireAnswers,
      ledger: async () => db,
    };
  };
  const statements = () => asked.flatMap((a) => ('sql' in a ? [a.sql.replace(/\s+/g, ' ')] : []));

  it('lists one workspace with =, several with one IN, and stops at a limit only when it walks the start-time index', async () => {
    const { meetings } = await stores();
    await meetings.list(S, {});
    await meetings.list([S], {});
    await meetings.list([S, OTHER], { email: 'lead@acme.example' });
    expect(statements()).toEqual([
      'SELECT * FROM schedctl_meetings WHERE workspace = ?',
      'SELECT * FROM schedctl_meetings WHERE workspace = ?',
      'SELECT * FROM schedctl_meetings WHERE workspace IN (?, ?) AND lead = ?',
    ]);
    asked = [];
    await meetings.list(S, { limit: 3 });
    await meetings.list(S, { limit: 3, event: 'demo' });
    expect(asked).toEqual([
      { sql: 'SELECT * FROM schedctl_meetings WHERE workspace = ? ORDER BY start_ms, id LIMIT ?', params: [S, 3] },
      {
        sql: 'SELECT * FROM schedctl_meetings WHERE workspace = ? AND (event = ? OR event_id = ?) ORDER BY start_ms, id LIMIT ?',
        params: [S, 'demo', 'demo', 3],
      },
    ]);
    // The lead's rows, or those not over, are few: asked whole (an ORDER BY would tempt SQLite's
    // planner to walk the whole workspace in start order), cut after.
    asked = [];
    await meetings.list(S, { limit: 3, email: 'lead@acme.example' });
    await meetings.list(S, { limit: 3, upcomingFrom: NOW });
    expect(statements().every((s) => !s.includes('LIMIT') && !s.includes('ORDER BY'))).toBe(true);
    expect(statements()).toHaveLength(2);
  });

  it("asks a lead's attempts in one workspace with =, in several with one IN", async () => {
    const { journal } = await stores();
    await journal.ofLead(S, 'lead@acme.example');
    await journal.ofLead([S, OTHER], 'lead@acme.example');
    expect(statements()).toEqual([
      'SELECT * FROM schedctl_attempts WHERE workspace = ? AND lead = ? ORDER BY seq',
      'SELECT * FROM schedctl_attempts WHERE workspace IN (?, ?) AND lead = ? ORDER BY seq',
    ]);
  });

  it('defers the writes whose count no step reads (on a team state they go out with the next statement or the COMMIT)', async () => {
    const { journal, fires, meetings } = await stores();
    const fire = await fires.prepare({ scope: S, triggerId: 't1', personEmail: 'lead@acme.example', answersKey: 'k' });
    await fires.answered(fire.id, 'run-1', 'scheduler');
    await journal.begin({
      scope: S,
      event: 'intro-call',
      reservationId: 'r1',
      workflowExecutionId: 'run-1',
      personEmail: 'lead@acme.example',
      startTime: '2031-03-08T10:00:00.000Z',
      outcome: 'unknown',
    });
    const shape = asked.flatMap((a) =>
      'sql' in a ? [`${a.step ? 'step' : 'sent'}: ${a.sql.replace(/\s+/g, ' ').split(' ').slice(0, 3).join(' ')}`] : [],
    );
    expect(shape).toEqual([
      // prepare: the prune and the fire, one step
      'step: DELETE FROM schedctl_fires',
      'step: INSERT INTO schedctl_fires',
      // answered: the fire read, then the earlier sent ones dropped and the fire written, with the COMMIT
      'sent: SELECT * FROM',
      'step: DELETE FROM schedctl_fires',
      'step: INSERT INTO schedctl_fires',
      // begin: the prune, the attempt and the look-up, one step
      'step: DELETE FROM schedctl_attempts',
      'step: INSERT INTO schedctl_attempts',
      'step: SELECT * FROM',
    ]);
    // A meeting new to the record: one statement, no read.
    asked = [];
    await meetings.record({ scope: S, meeting: meeting('m-new'), source: 'booked', event: 'intro-call' });
    expect(statements().map((s) => s.split(' ').slice(0, 3).join(' '))).toEqual(['INSERT INTO schedctl_meetings']);
  });

  it('writes over an entry this process knows without reading it, unless it moved or knows more (then reads and patches)', async () => {
    const { journal, fires } = await stores();
    const { attempt } = await journal.begin({
      scope: S,
      event: 'intro-call',
      reservationId: 'r7',
      workflowExecutionId: 'run-7',
      personEmail: 'lead@acme.example',
      startTime: '2031-03-08T10:00:00.000Z',
      outcome: 'unknown',
    });
    asked = [];
    const sent = await journal.markSent(attempt.id, attempt);
    expect(statements().map((t) => t.split(' ').slice(0, 3).join(' '))).toEqual(['INSERT INTO schedctl_attempts']);
    expect(sent).toMatchObject({ id: attempt.id, sentAt: NOW.toISOString(), outcome: 'unknown' });
    expect((await journal.all()).find((e) => e.id === attempt.id)).toEqual(sent);
    // Another run learnt the outcome meanwhile: a copy still unknown never replaces it; read and patched instead.
    const db = await sql();
    await db.run('UPDATE schedctl_attempts SET outcome = ?, body = ? WHERE id = ?', [
      'booked',
      JSON.stringify({ ...sent, outcome: 'booked' }),
      attempt.id,
    ]);
    asked = [];
    const lost = await journal.update(attempt.id, { lostBy: 'no_answer' }, sent);
    expect(lost).toMatchObject({ outcome: 'booked', lostBy: 'no_answer' });
    expect(statements().map((t) => t.split(' ').slice(0, 3).join(' '))).toEqual([
      'INSERT INTO schedctl_attempts',
      'SELECT * FROM',
      'INSERT INTO schedctl_attempts',
    ]);
    // Moved to another workspace (a key's records adopted): not written back to the old one.
    await db.run('UPDATE schedctl_attempts SET workspace = ? WHERE id = ?', [OTHER, attempt.id]);
    const moved = await journal.update(attempt.id, { updatedAt: NOW.toISOString() }, sent);
    expect(moved?.scope).toBe(OTHER);
    expect((await journal.all()).filter((e) => e.id === attempt.id).map((e) => e.scope)).toEqual([OTHER]);
    // A known entry of another id is no shortcut.
    expect(await journal.update('nobody', { lostBy: 'no_answer' }, sent)).toBeUndefined();

    // Fires alike: marked sent and answered without a read, the earlier unanswered ones dropped.
    const earlier = await fires.prepare({
      scope: S,
      triggerId: 't9',
      personEmail: 'lead@acme.example',
      answersKey: 'k',
    });
    await fires.markSent(earlier.id, earlier);
    const fire = await fires.prepare({ scope: S, triggerId: 't9', personEmail: 'lead@acme.example', answersKey: 'k' });
    asked = [];
    const fireSent = await fires.markSent(fire.id, fire);
    await fires.answered(fire.id, 'run-9', 'scheduler', fireSent);
    expect(statements().map((t) => t.split(' ').slice(0, 3).join(' '))).toEqual([
      'INSERT INTO schedctl_fires',
      'DELETE FROM schedctl_fires',
      'INSERT INTO schedctl_fires',
    ]);
    expect(await fires.unanswered(S, 'lead@acme.example', 't9')).toEqual([]);
    expect(await fires.byExecution(S, 'run-9')).toMatchObject({
      id: fire.id,
      state: 'answered',
      outcomeType: 'scheduler',
    });
    // A fire moved meanwhile: read and patched where it is now.
    await db.run('UPDATE schedctl_fires SET workspace = ? WHERE id = ?', [OTHER, fire.id]);
    expect(await fires.markSent(fire.id, fireSent)).toMatchObject({ scope: OTHER, state: 'sent' });
    await fires.answered(fire.id, 'run-10', 'redirect', fireSent);
    expect(await fires.byExecution(OTHER, 'run-10')).toMatchObject({
      id: fire.id,
      state: 'answered',
      outcomeType: 'redirect',
    });
    expect(await fires.byExecution(S, 'run-10')).toBeUndefined();
  });

  it('reads a row and writes it back in one transaction (its write with the COMMIT) only where it must', async () => {
    const { meetings, journal, fires } = await stores();
    const m = await meetings.record({ scope: S, meeting: meeting('m9'), source: 'booked', event: 'intro-call' });
    // A new meeting: one INSERT, no transaction of its own.
    expect(asked.filter((a) => 'transaction' in a)).toEqual([]);
    // Recorded again (already there): the INSERT finds it, then read and refreshed in a transaction.
    await meetings.record({ scope: S, meeting: meeting('m9'), source: 'recovered', event: 'intro-call' });
    await meetings.recordMove(S, m.id!, meeting('m9', { date: '2031-03-09T10:00:00.000Z' }), NOW);
    await journal.update('nobody', { outcome: 'booked' });
    await fires.markSent('nobody');
    expect(asked.filter((a) => 'transaction' in a)).toHaveLength(4);
    // Each write in them is the transaction's last step.
    expect(asked.filter((a) => 'sql' in a && /^\s*INSERT/.test(a.sql)).map((a) => 'step' in a && a.step)).toEqual([
      false,
      false,
      true,
      true,
    ]);
  });

  it("writes a fire's answer and outcome with the booking's first step (FireAnswers), or alone when none follows", async () => {
    const { journal, outcomes, fireAnswers, ledger } = await stores();
    const fired = { executionId: 'run-2', firedAt: NOW.toISOString(), answersKey: 'k' };
    const scheduler = { type: 'scheduler', schedulingLinkId: 'l', url: 'https://x.example' };
    expect(
      await outcomes.remember(S, 't2', 'lead@acme.example', { ...fired, outcome: scheduler } as never, [], {
        withBooking: true,
      }),
    ).toBe(true);
    // Nothing written yet: it waits for the attempt.
    expect(asked).toEqual([]);
    expect(await outcomes.get(S, 't2', 'lead@acme.example')).toBeUndefined();
    asked = [];
    await journal.begin({
      scope: S,
      event: 'intro-call',
      reservationId: 'r2',
      workflowExecutionId: 'run-2',
      personEmail: 'lead@acme.example',
      startTime: '2031-03-08T10:00:00.000Z',
      outcome: 'unknown',
    });
    expect(statements().map((t) => t.split(' ').slice(0, 3).join(' '))).toEqual([
      'INSERT INTO schedctl_outcomes',
      'DELETE FROM schedctl_attempts',
      'INSERT INTO schedctl_attempts',
      'SELECT * FROM',
    ]);
    // One step: the outcome first, then the attempt's own statements.
    expect(asked.every((a) => 'step' in a && a.step)).toBe(true);
    expect(await outcomes.get(S, 't2', 'lead@acme.example')).toMatchObject({ executionId: 'run-2' });
    // Taken once: the next attempt carries nothing.
    expect(fireAnswers.take()).toEqual([]);
    // No booking follows: send() writes them alone; without `withBooking`, remember writes at once.
    await outcomes.remember(S, 't3', 'lead@acme.example', { ...fired, outcome: scheduler } as never, [], {
      withBooking: true,
    });
    expect(await outcomes.get(S, 't3', 'lead@acme.example')).toBeUndefined();
    await fireAnswers.send(ledger);
    expect(await outcomes.get(S, 't3', 'lead@acme.example')).toMatchObject({ executionId: 'run-2' });
    // Where a step costs no round trip (this machine's ledger), written at once: a killed process keeps it.
    fireAnswers.holds = false;
    await outcomes.remember(S, 't5', 'lead@acme.example', { ...fired, outcome: scheduler } as never, [], {
      withBooking: true,
    });
    expect(await outcomes.get(S, 't5', 'lead@acme.example')).toMatchObject({ executionId: 'run-2' });
    expect(fireAnswers.take()).toEqual([]);
    expect(
      await outcomes.remember(S, 't4', 'lead@acme.example', { ...fired, outcome: { type: 'none' } } as never),
    ).toBe(false);
    expect(await outcomes.forgetExecution(S, 'run-2')).toMatchObject({ executionId: 'run-2', scope: S });
  });
});
