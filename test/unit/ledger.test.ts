import { describe, expect, it } from 'vitest';
import { decide, isSameMeeting, type LeadRecord } from '../../src/domain/ledger.js';
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
});
