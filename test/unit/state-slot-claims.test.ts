/**
 * Which times another booking holds (state/slot-claims.ts): the three reads and what their answers
 * mean, on their own. The reads against both engines, through Journal.begin: the backend
 * contract suite; a route skipping such a time: test/unit/route-flow.test.ts and
 * test/e2e/slot-claims.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { CLOCK_SKEW_MS, claimReads, IN_FLIGHT_MS, isClaimed, SlotClaimedError } from '../../src/state/slot-claims.js';
import type { Answer } from '../../src/state/sql/types.js';

const AT = '2031-03-09T09:00:00.000Z';
const SINCE = Date.parse('2031-03-01T12:00:00.000Z');
const Q = { scope: 'ws', event: 'ev-1', personEmail: ' Lead@Example.com ', startTime: AT };
const rows = (...bodies: object[]): Answer => ({ rows: bodies.map((b) => ({ body: JSON.stringify(b) })), changes: 0 });
const none = rows();

describe('claimReads', () => {
  it("asks for other leads' unanswered attempts at that time, sent within the last minute, that time's meetings, and the event's names", () => {
    const [flying, booked, names] = claimReads(Q, SINCE);
    expect(flying![0]).toMatch(/FROM schedctl_attempts WHERE workspace = \? AND outcome = 'unknown' AND sent = 1/);
    expect(flying![0]).toMatch(/start_ms = \? AND lead <> \? AND touched_ms >= \?/);
    expect(flying![1]).toEqual(['ws', Date.parse(AT), 'lead@example.com', SINCE - IN_FLIGHT_MS]);
    expect(booked![0]).toBe(
      'SELECT event, event_id, body FROM schedctl_meetings WHERE workspace = ? AND start_ms = ? AND lead <> ?',
    );
    expect(booked![1]).toEqual(['ws', Date.parse(AT), 'lead@example.com']);
    expect(names![0]).toMatch(/FROM schedctl_event_aliases WHERE workspace = \? AND event_id IN\s+\(SELECT event_id/);
    expect(names![1]).toEqual(['ws', 'ws', 'ev-1']);
  });
});

const meeting = (event: string, eventId: string, recordedAt: number): Answer => ({
  rows: [{ event, event_id: eventId, body: JSON.stringify({ recordedAt: new Date(recordedAt).toISOString() }) }],
  changes: 0,
});
const aliases = (...pairs: [string, string][]): Answer => ({
  rows: pairs.map(([alias, id]) => ({ alias, event_id: id })),
  changes: 0,
});

describe('isClaimed', () => {
  it('an unanswered attempt of the same event holds the time; one of another event does not', () => {
    expect(isClaimed([rows({ event: 'ev-1' }), none, none], Q, SINCE)).toBe(true);
    expect(isClaimed([rows({ event: 'ev-2' }), none, none], Q, SINCE)).toBe(false);
    expect(isClaimed([rows({ event: 'ev-2' }, { event: 'ev-1' }), none, none], Q, SINCE)).toBe(true);
  });

  it('the same event by another name (a slug, a link id, its id: the aliases read) holds it too', () => {
    const named = aliases(['ev-1', 'E1'], ['demo-slug', 'E1']);
    expect(isClaimed([rows({ event: 'demo-slug' }), none, named], Q, SINCE)).toBe(true);
    expect(isClaimed([rows({ event: 'demo-slug' }), none, none], Q, SINCE), 'no alias known').toBe(false);
    expect(isClaimed([none, meeting('demo-slug', 'E1', SINCE + 1), named], Q, SINCE)).toBe(true);
    expect(isClaimed([none, meeting('other', 'E1', SINCE + 1), named], Q, SINCE), 'by its event id').toBe(true);
    expect(isClaimed([none, meeting('other', 'E2', SINCE + 1), named], Q, SINCE), 'another event').toBe(false);
  });

  it('a meeting recorded since the page was fetched holds it (the clocks may be 2 s apart); one recorded before does not', () => {
    const recorded = (ms: number) => meeting('ev-1', 'E1', ms);
    expect(isClaimed([none, recorded(SINCE + 1), none], Q, SINCE)).toBe(true);
    expect(isClaimed([none, recorded(SINCE - CLOCK_SKEW_MS), none], Q, SINCE)).toBe(true);
    expect(isClaimed([none, recorded(SINCE - CLOCK_SKEW_MS - 1), none], Q, SINCE)).toBe(false);
    const undated: Answer = { rows: [{ event: 'ev-1', event_id: 'E1', body: '{}' }], changes: 0 };
    expect(isClaimed([none, undated, none], Q, SINCE), 'no recordedAt: not known to be since').toBe(false);
  });

  it('nothing read: free', () => {
    expect(isClaimed([none, none, none], Q, SINCE)).toBe(false);
    expect(isClaimed([], Q, SINCE)).toBe(false);
  });

  it('the refusal names the time, as a conflict (exit 5) that never reaches the user: the route picks another', () => {
    const e = new SlotClaimedError(AT);
    expect(e.message).toBe(`${AT} is being booked, or was just booked, by another run of this workspace`);
    expect(e).toMatchObject({ code: 'SLOT_CLAIMED', exitCode: 5, slot: AT });
  });
});
