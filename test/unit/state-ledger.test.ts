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
