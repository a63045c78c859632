import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openState } from '../../src/state/index.js';
import { leadRecord } from '../../src/state/ledger.js';

const NOW = new Date('2031-03-01T12:00:00.000Z');
const LATER = '2031-03-04T15:00:00.000Z';
const EARLIER = '2031-02-20T15:00:00.000Z';
const WS = 'https://api.example.com#key:0123456789abcdef';
const EVENT = '7a3c9f10-1b2d-4e5f-8a9b-0c1d2e3f4a5b';

function meeting(id: string, date: string, email = 'Ada@Acme.com', status = 'scheduled') {
  return {
    id,
    eventId: EVENT,
    title: 'Intro',
    status,
    date,
    duration: 30,
    meetingLink: null,
    conferencingType: 'zoom',
    location: null,
    personEmail: email,
    additionalAttendees: [],
    cancellationReason: null,
    createdAt: NOW.toISOString(),
    updatedAt: NOW.toISOString(),
  };
}

async function attempt(
  state: ReturnType<typeof openState>,
  over: {
    email?: string;
    start?: string;
    scope?: string;
    sent?: boolean;
    outcome?: 'unknown' | 'booked' | 'already_booked';
    meetingId?: string;
  } = {},
) {
  const a = await state.journal.add({
    scope: over.scope ?? WS,
    event: 'intro-call',
    reservationId: 'r',
    workflowExecutionId: null,
    personEmail: over.email ?? 'ada@acme.com',
    startTime: over.start ?? LATER,
    outcome: 'unknown',
  });
  if (over.sent !== false) await state.journal.markSent(a.id);
  if (over.outcome && over.outcome !== 'unknown')
    await state.journal.update(a.id, {
      outcome: over.outcome,
      ...(over.meetingId ? { meetingId: over.meetingId } : {}),
    });
  return a.id;
}

describe("the lead's record, as the ledger reads it", () => {
  it('holds the upcoming meetings of the lead (any case), none past, canceled, of another lead or workspace', async () => {
    const state = openState(mkdtempSync(join(tmpdir(), 'ledger-')), { now: () => NOW });
    const record = (m: ReturnType<typeof meeting>, scope = WS) =>
      state.meetings.record({ scope, meeting: m, source: 'booked', event: 'intro-call' });
    await record(meeting('m1', LATER));
    await record(meeting('m2', EARLIER));
    await record(meeting('m3', LATER, 'ada@acme.com', 'canceled'));
    await record(meeting('m4', LATER, 'bob@acme.com'));
    await record(meeting('m5', LATER), 'other-workspace');
    const r = await leadRecord(state, WS, ' ADA@acme.com', NOW);
    expect(r.meetings.map((m) => m.id)).toEqual(['m1']);
    expect(r.unknown).toEqual([]);
    expect(r.bookedUnrecorded).toEqual([]);
  });

  it('holds sent attempts whose outcome is unknown, not those never sent, acknowledged, of another lead or workspace', async () => {
    const state = openState(mkdtempSync(join(tmpdir(), 'ledger-')), { now: () => NOW });
    const sent = await attempt(state);
    const past = await attempt(state, { start: EARLIER });
    await attempt(state, { sent: false });
    await attempt(state, { email: 'bob@acme.com' });
    await attempt(state, { scope: 'other' });
    const acked = await attempt(state);
    await state.journal.update(acked, { acknowledgedAt: NOW.toISOString() });
    const r = await leadRecord(state, WS, 'Ada@Acme.com', NOW);
    // An unknown outcome blocks whatever its time: it may be a meeting that was moved.
    expect(r.unknown.map((a) => a.id)).toEqual([sent, past]);
  });

  it('holds upcoming attempts known to have booked whose meeting is in no record', async () => {
    const state = openState(mkdtempSync(join(tmpdir(), 'ledger-')), { now: () => NOW });
    const unrecorded = await attempt(state, { outcome: 'already_booked' });
    const noId = await attempt(state, { outcome: 'booked' });
    await attempt(state, { outcome: 'booked', meetingId: 'm1' });
    await attempt(state, { outcome: 'booked', start: EARLIER });
    const atNow = await attempt(state, { outcome: 'booked', start: NOW.toISOString() });
    const open = await attempt(state);
    await state.meetings.record({ scope: WS, meeting: meeting('m1', LATER), source: 'booked', event: 'intro-call' });
    const r = await leadRecord(state, WS, 'ada@acme.com', NOW);
    expect(r.bookedUnrecorded.map((a) => a.id)).toEqual([unrecorded, noId, atNow]);
    // Known outcomes are not unknown, and an unknown one is not a booking.
    expect(r.unknown.map((a) => a.id)).toEqual([open]);
    expect(r.meetings.map((m) => m.id)).toEqual(['m1']);
  });

  it('keeps an attempt booked as a meeting not on record when its meeting id is another one', async () => {
    const state = openState(mkdtempSync(join(tmpdir(), 'ledger-')), { now: () => NOW });
    const other = await attempt(state, { outcome: 'booked', meetingId: 'm9' });
    await state.meetings.record({ scope: WS, meeting: meeting('m1', LATER), source: 'booked', event: 'intro-call' });
    expect((await leadRecord(state, WS, 'ada@acme.com', NOW)).bookedUnrecorded.map((a) => a.id)).toEqual([other]);
  });
});

describe("a 404 in the lead's record (issue 52 finding 2)", () => {
  it('notes an upcoming meeting the API answered 404 for, never past, canceled or answered since', async () => {
    const state = openState(mkdtempSync(join(tmpdir(), 'ledger-')), { now: () => NOW });
    const record = (m: ReturnType<typeof meeting>) =>
      state.meetings.record({ scope: WS, meeting: m, source: 'booked', event: 'intro-call' });
    await record(meeting('m1', LATER));
    await record(meeting('m2', EARLIER));
    await record(meeting('m3', LATER, 'ada@acme.com', 'canceled'));
    await record(meeting('m4', LATER));
    for (const id of ['m1', 'm2', 'm3']) await state.meetings.markGone(WS, id, NOW);
    const r = await leadRecord(state, WS, 'ada@acme.com', NOW);
    expect(r.notFound).toEqual([{ ...(await state.meetings.get(WS, 'm1')), goneAt: NOW.toISOString() }]);
    expect(r.meetings.map((m) => m.id)).toEqual(['m4']);
    // A Meeting answered since (a move) clears the note.
    await state.meetings.recordMove(WS, 'm1', meeting('m1', LATER), NOW);
    expect((await leadRecord(state, WS, 'ada@acme.com', NOW)).notFound).toEqual([]);
  });

  it('notes a booked attempt whose meeting is in no record and was answered 404, until its time passes', async () => {
    const state = openState(mkdtempSync(join(tmpdir(), 'ledger-')), { now: () => NOW });
    const id = await attempt(state, { outcome: 'booked', meetingId: 'm7' });
    await attempt(state, { outcome: 'booked', meetingId: 'm8', start: EARLIER });
    await attempt(state, { outcome: 'booked' });
    await state.journal.markGone(WS, 'm7', NOW);
    await state.journal.markGone(WS, 'm8', NOW);
    const r = await leadRecord(state, WS, 'ada@acme.com', NOW);
    expect(r.notFound).toEqual([{ id: 'm7', date: LATER, goneAt: NOW.toISOString(), event: 'intro-call', scope: WS }]);
    expect(r.bookedUnrecorded.map((a) => a.id)).not.toContain(id);
    // Recorded as a meeting, the note is the meeting's (once).
    await state.meetings.record({ scope: WS, meeting: meeting('m7', LATER), source: 'booked', event: 'intro-call' });
    await state.meetings.markGone(WS, 'm7', NOW);
    expect((await leadRecord(state, WS, 'ada@acme.com', NOW)).notFound.map((n) => n.id)).toEqual(['m7']);
  });
});

describe("a move marked sent in the meeting's record (issue 52 finding 5)", () => {
  it('keeps the pending move until an answer settles it: a move, a refusal, a 404, or taken back', async () => {
    const state = openState(mkdtempSync(join(tmpdir(), 'ledger-')), { now: () => NOW });
    const pending = { to: '2031-03-05T15:00:00.000Z', sentAt: NOW.toISOString() };
    expect(await state.meetings.markMoveSent(WS, 'm1', pending)).toBeUndefined();
    await state.meetings.record({ scope: WS, meeting: meeting('m1', LATER), source: 'booked', event: 'intro-call' });
    const marked = await state.meetings.markMoveSent(WS, 'm1', pending);
    expect(marked?.pendingMove).toEqual(pending);
    expect(marked?.date).toBe(LATER);
    expect((await state.meetings.get(WS, 'm1'))?.pendingMove).toEqual(pending);
    const settledBy = [
      () => state.meetings.recordMove(WS, 'm1', meeting('m1', pending.to), NOW),
      () => state.meetings.recordRefusal(WS, 'm1', { startTime: pending.to, at: NOW.toISOString() }, NOW),
      () => state.meetings.markGone(WS, 'm1', NOW),
      () => state.meetings.markMoveSent(WS, 'm1', undefined),
    ];
    for (const settle of settledBy) {
      await state.meetings.markMoveSent(WS, 'm1', pending);
      await settle();
      const after = await state.meetings.get(WS, 'm1');
      expect(after?.pendingMove).toBeUndefined();
      expect(after && 'pendingMove' in after).toBe(false);
    }
  });
});

describe('legacy scopes are adopted into the workspace', () => {
  it('moves journal entries, outcomes, meetings and fires of profile@url to the workspace, writing nothing otherwise', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ledger-'));
    const state = openState(dir, { now: () => NOW });
    const legacy = 'sandbox@http://127.0.0.1:4010';
    await attempt(state, { scope: legacy });
    await state.meetings.record({
      scope: legacy,
      meeting: meeting('m1', LATER),
      source: 'booked',
      event: 'intro-call',
    });
    await state.outcomes.remember(legacy, 't1', 'ada@acme.com', {
      executionId: 'x1',
      outcome: { type: 'scheduler', schedulerUrl: 'u', schedulingLinkId: 'l' },
      firedAt: NOW.toISOString(),
      answersKey: 'k',
    });
    await state.fires.prepare({ scope: legacy, triggerId: 't1', personEmail: 'ada@acme.com', answersKey: 'k' });
    await state.adopt(legacy, WS);
    const r = await leadRecord(state, WS, 'ada@acme.com', NOW);
    expect(r.meetings.map((m) => m.id)).toEqual(['m1']);
    expect(r.unknown).toHaveLength(1);
    expect((await state.outcomes.get(WS, 't1', 'ada@acme.com'))?.executionId).toBe('x1');
    expect(await state.outcomes.get(legacy, 't1', 'ada@acme.com')).toBeUndefined();
    expect(await state.meetings.get(WS, 'm1')).toMatchObject({ scope: WS });
    expect(await state.meetings.list(legacy)).toEqual([]);
    expect((await state.journal.all()).map((e) => e.scope)).toEqual([WS]);
    await state.adopt(WS, WS);
    await state.adopt('nobody@x', WS);
    expect((await state.journal.all()).map((e) => e.scope)).toEqual([WS]);
  });
});

describe('fires journal', () => {
  it('keeps a sent fire without an answer until a later fire of that lead and trigger is answered', async () => {
    const state = openState(mkdtempSync(join(tmpdir(), 'ledger-')), { now: () => NOW });
    const fire = { scope: WS, triggerId: 't1', personEmail: 'Ada@acme.com', answersKey: 'k' };
    const lost = await state.fires.prepare(fire);
    await state.fires.markSent(lost.id);
    const never = await state.fires.prepare(fire);
    expect((await state.fires.unanswered(WS, 'ada@ACME.com', 't1')).map((f) => f.id)).toEqual([lost.id]);
    expect(await state.fires.unanswered(WS, 'ada@acme.com', 't2')).toEqual([]);
    expect(await state.fires.unanswered('other', 'ada@acme.com')).toEqual([]);
    await state.fires.forget(never.id);
    const next = await state.fires.prepare(fire);
    await state.fires.markSent(next.id);
    await state.fires.answered(next.id, 'x2', 'scheduler');
    expect(await state.fires.unanswered(WS, 'ada@acme.com')).toEqual([]);
    expect(await state.fires.byExecution(WS, 'x2')).toMatchObject({
      triggerId: 't1',
      answersKey: 'k',
      state: 'answered',
    });
  });
});

describe('event aliases', () => {
  it('learns what a slug or link names, per workspace, and writes only what is new', async () => {
    const state = openState(mkdtempSync(join(tmpdir(), 'ledger-')), { now: () => NOW });
    await state.events.learn(WS, 'Intro-Call', EVENT.toUpperCase());
    await state.events.learn(WS, EVENT, EVENT);
    await state.events.learn('other', 'demo', EVENT);
    expect(await state.events.of(WS, ['intro-call', 'demo', EVENT])).toEqual({ 'intro-call': EVENT });
    expect(await state.events.of(WS, ['INTRO-CALL '])).toEqual({ 'intro-call': EVENT });
    expect(await state.events.of('other', ['demo', 'intro-call'])).toEqual({ demo: EVENT });
    expect(await state.events.of(WS, [])).toEqual({});
  });
});
