import { describe, expect, it } from 'vitest';
import {
  ADOPT_CLOCK_TOLERANCE_MS,
  ADOPT_FLIGHT_MS,
  adoptable,
  decide,
  decideMove,
  isSameMeeting,
  refuses,
  type LeadRecord,
} from '../../src/domain/lead-rule.js';
import type { JournalEntry, MeetingRecord } from '../../src/state/index.js';

const EVENT = '7a3c9f10-1b2d-4e5f-8a9b-0c1d2e3f4a5b';
const OTHER_EVENT = '7a3c9f10-1b2d-4e5f-8a9b-0c1d2e3f4a5c';
const LINK = '00000000-0000-4000-8000-00000000a1a1';
const T1 = '2031-03-04T15:00:00.000Z';
const T2 = '2031-03-05T15:00:00.000Z';
const ALIASES = { 'intro-call': EVENT, [LINK]: EVENT };

const meeting = (over: Partial<MeetingRecord> = {}): MeetingRecord =>
  ({
    id: 'm1',
    eventId: EVENT,
    date: T1,
    personEmail: 'ada@acme.com',
    event: 'intro-call',
    scope: 'ws',
    source: 'booked',
    recordedAt: T1,
    history: [],
    ...over,
  }) as MeetingRecord;

const attempt = (over: Partial<JournalEntry> = {}): JournalEntry => ({
  id: 'a1',
  scope: 'ws',
  event: 'intro-call',
  reservationId: 'r1',
  workflowExecutionId: null,
  personEmail: 'ada@acme.com',
  startTime: T1,
  attemptedAt: T1,
  sentAt: T1,
  outcome: 'unknown',
  ...over,
});

const record = (over: Partial<LeadRecord> = {}): LeadRecord => ({
  meetings: [],
  unknown: [],
  bookedUnrecorded: [],
  notFound: [],
  ...over,
});

const book = (event: string, start = T1) => ({ kind: 'book' as const, event, start: new Date(start) });
const route = (start: Date | 'first' = 'first', answersKey = 'k1', triggerId = 't1') => ({
  kind: 'route' as const,
  triggerId,
  answersKey,
  start,
});
const go = { rebook: false, aliases: ALIASES };

describe('the ledger rule: one lead, one meeting', () => {
  it('sends when the lead has nothing upcoming and nothing unresolved', () => {
    expect(decide(record(), book('intro-call'), go)).toEqual({ kind: 'send', maybeBooked: [] });
  });

  it('answers the identical booking from the record, whatever spelling of the event', () => {
    const m = meeting();
    for (const spelling of ['intro-call', 'INTRO-CALL', EVENT, LINK])
      expect(decide(record({ meetings: [m] }), book(spelling), go)).toEqual({ kind: 'repeat', meeting: m });
  });

  it('refuses another time, another event or another trigger while a meeting is upcoming', () => {
    const m = meeting();
    const has = { kind: 'has_meeting', meeting: m };
    expect(decide(record({ meetings: [m] }), book('intro-call', T2), go)).toEqual(has);
    expect(decide(record({ meetings: [m] }), book(OTHER_EVENT), go)).toEqual(has);
    expect(decide(record({ meetings: [m] }), route(), go)).toEqual(has);
  });

  it('answers a route of the same trigger and answers from the record (any time with first), refuses other answers', () => {
    const m = meeting({ triggerId: 't1', answersKey: 'k1' });
    expect(decide(record({ meetings: [m] }), route(), go)).toEqual({ kind: 'repeat', meeting: m });
    expect(decide(record({ meetings: [m] }), route(new Date(T1)), go)).toEqual({ kind: 'repeat', meeting: m });
    expect(decide(record({ meetings: [m] }), route(new Date(T2)), go).kind).toBe('has_meeting');
    expect(decide(record({ meetings: [m] }), route('first', 'k2'), go).kind).toBe('has_meeting');
    expect(decide(record({ meetings: [m] }), route('first', 'k1', 't2'), go).kind).toBe('has_meeting');
  });

  it('refuses while an earlier sent attempt has an unknown outcome (it counts as a meeting), the latest named', () => {
    const a = attempt();
    const b = attempt({ id: 'a2', event: 'demo' });
    expect(decide(record({ unknown: [a, b] }), book('demo', T2), go)).toEqual({ kind: 'unknown_attempt', attempt: b });
    expect(decide(record({ unknown: [a] }), route(), go)).toEqual({ kind: 'unknown_attempt', attempt: a });
  });

  it('names the unknown attempt before a meeting on record: it is the thing to resolve first', () => {
    const a = attempt();
    expect(decide(record({ unknown: [a], meetings: [meeting({ date: T2 })] }), book('demo'), go).kind).toBe(
      'unknown_attempt',
    );
  });

  it('takes an attempt known to have booked (no meeting on record) as a meeting: the same again repeats it, else refused', () => {
    const a = attempt({ outcome: 'already_booked', eventId: EVENT });
    const r = record({ bookedUnrecorded: [a] });
    expect(decide(r, book(EVENT), go)).toEqual({ kind: 'repeat_attempt', attempt: a });
    expect(decide(r, book('intro-call'), go)).toEqual({ kind: 'repeat_attempt', attempt: a });
    expect(decide(r, book('intro-call', T2), go)).toEqual({ kind: 'has_booked_attempt', attempt: a });
    const routed = attempt({ outcome: 'booked', triggerId: 't1', answersKey: 'k1', event: LINK });
    expect(decide(record({ bookedUnrecorded: [routed] }), route(), go)).toEqual({
      kind: 'repeat_attempt',
      attempt: routed,
    });
    expect(decide(record({ bookedUnrecorded: [routed] }), route('first', 'k2'), go).kind).toBe('has_booked_attempt');
    expect(decide(record({ bookedUnrecorded: [routed] }), route('first', 'k1', 't2'), go).kind).toBe(
      'has_booked_attempt',
    );
    expect(decide(record({ bookedUnrecorded: [routed] }), route(new Date(T2)), go).kind).toBe('has_booked_attempt');
    expect(decide(record({ bookedUnrecorded: [routed] }), book('intro-call'), go)).toEqual({
      kind: 'repeat_attempt',
      attempt: routed,
    });
  });

  it('compares an attempt by its eventId when kept, else by its spelling', () => {
    const byId = attempt({ outcome: 'booked', event: 'x-slug', eventId: EVENT });
    expect(decide(record({ bookedUnrecorded: [byId] }), book(LINK), go).kind).toBe('repeat_attempt');
    expect(decide(record({ bookedUnrecorded: [byId] }), book(OTHER_EVENT), go).kind).toBe('has_booked_attempt');
    const typed = attempt({ outcome: 'booked', event: 'Intro-Call' });
    expect(decide(record({ bookedUnrecorded: [typed] }), book('intro-call'), { ...go, aliases: {} }).kind).toBe(
      'repeat_attempt',
    );
    expect(decide(record({ bookedUnrecorded: [typed] }), book(EVENT), { ...go, aliases: {} }).kind).toBe(
      'has_booked_attempt',
    );
  });

  it('resolves an attempt event through the aliases even without its eventId', () => {
    const a = attempt({ outcome: 'booked', event: LINK });
    expect(decide(record({ bookedUnrecorded: [a] }), book(EVENT), go).kind).toBe('repeat_attempt');
    expect(decide(record({ bookedUnrecorded: [a] }), book(EVENT), { ...go, aliases: {} }).kind).toBe(
      'has_booked_attempt',
    );
  });

  it('with rebook, sends anyway and lists the unknown outcomes to warn about', () => {
    const a = attempt();
    const r = record({ unknown: [a], meetings: [meeting()] });
    expect(decide(r, book('intro-call'), { ...go, rebook: true })).toEqual({ kind: 'send', maybeBooked: [a] });
  });

  it('compares a meeting by event identity only for book, by trigger and answers only for route', () => {
    const m = meeting({ triggerId: 't1', answersKey: 'k1' });
    expect(isSameMeeting(m, book(EVENT), ALIASES)).toBe(true);
    expect(isSameMeeting(meeting({ event: 'x', eventId: OTHER_EVENT }), book('intro-call'), ALIASES)).toBe(false);
    expect(isSameMeeting(meeting(), route(), ALIASES)).toBe(false);
  });

  it('a 404 noted for an upcoming meeting refuses, naming it, after every other row; rebook sends', () => {
    const note = { id: 'm9', date: T1, goneAt: T1, event: 'intro-call', scope: 'ws' };
    expect(decide(record({ notFound: [note] }), book('intro-call'), go)).toEqual({ kind: 'not_found', note });
    expect(decide(record({ notFound: [note] }), route(), go)).toEqual({ kind: 'not_found', note });
    expect(decide(record({ notFound: [note], meetings: [meeting()] }), book('x'), go).kind).toBe('has_meeting');
    expect(decide(record({ notFound: [note], unknown: [attempt()] }), book('x'), go).kind).toBe('unknown_attempt');
    expect(decide(record({ notFound: [note] }), book('intro-call'), { ...go, rebook: true }).kind).toBe('send');
    expect(refuses({ kind: 'not_found', note })).toBe(true);
    expect(refuses({ kind: 'send', maybeBooked: [] })).toBe(false);
    expect(refuses({ kind: 'repeat', meeting: meeting() })).toBe(false);
    expect(refuses({ kind: 'repeat_attempt', attempt: attempt() })).toBe(false);
    expect(refuses({ kind: 'has_meeting', meeting: meeting() })).toBe(true);
    expect(refuses({ kind: 'has_booked_attempt', attempt: attempt() })).toBe(true);
    expect(refuses({ kind: 'unknown_attempt', attempt: attempt() })).toBe(true);
  });
});

describe('the lead rule for moves', () => {
  const search = (...candidates: string[]) => ({ kind: 'search' as const, candidates });
  const pendingMove = { to: T2, sentAt: T1 };

  it('sends a named time, or a search in its order, when nothing is pending', () => {
    expect(decideMove({ date: T1 }, { kind: 'time', to: new Date(T2) })).toEqual({ kind: 'send', candidates: [T2] });
    expect(decideMove(undefined, search(T2, T1))).toEqual({ kind: 'send', candidates: [T2, T1] });
  });

  it('sends nothing when the record has the meeting at that time already', () => {
    expect(decideMove({ date: T1 }, { kind: 'time', to: new Date(T1) })).toEqual({ kind: 'unchanged', at: T1 });
    expect(decideMove({ date: '2031-03-04T15:00:00Z' }, search(T1, T2))).toEqual({
      kind: 'unchanged',
      at: '2031-03-04T15:00:00Z',
    });
  });

  it('after a lost answer, a search sends the same move again before any other time', () => {
    expect(decideMove({ date: T1, pendingMove }, search('2031-03-06T15:00:00.000Z', T2))).toEqual({
      kind: 'send',
      candidates: [T2, '2031-03-06T15:00:00.000Z'],
      resend: pendingMove,
    });
    expect(decideMove({ date: T2, pendingMove }, search(T2))).toEqual({
      kind: 'send',
      candidates: [T2],
      resend: pendingMove,
    });
  });

  it('after a lost answer, the same named time is sent again; another named time goes as asked', () => {
    expect(decideMove({ date: T1, pendingMove }, { kind: 'time', to: new Date(T2) })).toEqual({
      kind: 'send',
      candidates: [T2],
      resend: pendingMove,
    });
    expect(decideMove({ date: T1, pendingMove }, { kind: 'time', to: new Date(T1) })).toEqual({
      kind: 'send',
      candidates: [T1],
    });
  });
});

describe('the evidence for adopting an id after a lost booking', () => {
  const sentAt = '2031-03-01T10:00:00.000Z';
  const lost = attempt({ sentAt, eventId: EVENT, updatedAt: '2031-03-01T10:00:30.000Z' });
  const at = (ms: number) => new Date(Date.parse(sentAt) + ms).toISOString();
  const answered = (over: Partial<{ personEmail: string; eventId: string; createdAt: string }> = {}) => ({
    personEmail: 'Ada@Acme.com ',
    eventId: EVENT,
    createdAt: at(1_000),
    ...over,
  });
  const o = { skewMs: 0, aliases: ALIASES };

  it("adopts a Meeting of the same lead and event created during the lost attempt's flight", () => {
    expect(adoptable(answered(), lost, o)).toBe(true);
    expect(adoptable(answered({ createdAt: at(-ADOPT_CLOCK_TOLERANCE_MS) }), lost, o)).toBe(true);
    expect(adoptable(answered({ createdAt: at(30_000 + ADOPT_FLIGHT_MS + ADOPT_CLOCK_TOLERANCE_MS) }), lost, o)).toBe(
      true,
    );
  });

  it('refuses another lead, another event, or a Meeting created before the send or after the flight', () => {
    expect(adoptable(answered({ personEmail: 'bob@acme.com' }), lost, o)).toBe(false);
    expect(adoptable(answered({ eventId: OTHER_EVENT }), lost, o)).toBe(false);
    expect(adoptable(answered({ createdAt: at(-ADOPT_CLOCK_TOLERANCE_MS - 1) }), lost, o)).toBe(false);
    expect(adoptable(answered({ createdAt: at(30_001 + ADOPT_FLIGHT_MS + ADOPT_CLOCK_TOLERANCE_MS) }), lost, o)).toBe(
      false,
    );
    expect(adoptable(answered(), { ...lost, sentAt: undefined }, o)).toBe(false);
    expect(adoptable(answered({ createdAt: 'garbage' }), lost, o)).toBe(false);
  });

  it("reads the Meeting's createdAt on the server's clock, brought to this one by the skew", () => {
    const ahead = answered({ createdAt: at(3_600_000 + 1_000) });
    expect(adoptable(ahead, lost, o)).toBe(false);
    expect(adoptable(ahead, lost, { ...o, skewMs: 3_600_000 })).toBe(true);
  });

  it("resolves the attempt's event through the aliases; an event never resolved leaves the clock as evidence", () => {
    const byLink = { ...lost, eventId: undefined, event: LINK };
    expect(adoptable(answered(), byLink, o)).toBe(true);
    expect(adoptable(answered({ eventId: OTHER_EVENT }), byLink, o)).toBe(false);
    expect(adoptable(answered({ eventId: OTHER_EVENT }), { ...byLink, event: 'unknown-link' }, o)).toBe(true);
  });
});
