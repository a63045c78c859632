/**
 * Which times another booking holds (state/slot-claims.ts): the two reads and what their answers
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
  it("asks for other leads' unanswered attempts at that time, sent within the last minute, and that time's meetings of the event", () => {
    const [flying, booked] = claimReads(Q, SINCE);
    expect(flying![0]).toMatch(/FROM schedctl_attempts WHERE workspace = \? AND outcome = 'unknown' AND sent = 1/);
    expect(flying![0]).toMatch(/start_ms = \? AND lead <> \? AND touched_ms >= \?/);
    expect(flying![1]).toEqual(['ws', Date.parse(AT), 'lead@example.com', SINCE - IN_FLIGHT_MS]);
    expect(booked![0]).toBe(
      'SELECT body FROM schedctl_meetings WHERE workspace = ? AND start_ms = ? AND event = ? AND lead <> ?',
    );
    expect(booked![1]).toEqual(['ws', Date.parse(AT), 'ev-1', 'lead@example.com']);
  });
});

describe('isClaimed', () => {
  it('an unanswered attempt of the same event holds the time; one of another event does not', () => {
    expect(isClaimed([rows({ event: 'ev-1' }), none], Q, SINCE)).toBe(true);
    expect(isClaimed([rows({ event: 'ev-2' }), none], Q, SINCE)).toBe(false);
    expect(isClaimed([rows({ event: 'ev-2' }, { event: 'ev-1' }), none], Q, SINCE)).toBe(true);
  });

  it('a meeting recorded since the page was fetched holds it (the clocks may be 2 s apart); one recorded before does not', () => {
    const recorded = (ms: number) => rows({ recordedAt: new Date(ms).toISOString() });
    expect(isClaimed([none, recorded(SINCE + 1)], Q, SINCE)).toBe(true);
    expect(isClaimed([none, recorded(SINCE - CLOCK_SKEW_MS)], Q, SINCE)).toBe(true);
    expect(isClaimed([none, recorded(SINCE - CLOCK_SKEW_MS - 1)], Q, SINCE)).toBe(false);
    expect(isClaimed([none, rows({})], Q, SINCE), 'no recordedAt: not known to be since').toBe(false);
  });

  it('nothing read: free', () => {
    expect(isClaimed([none, none], Q, SINCE)).toBe(false);
    expect(isClaimed([], Q, SINCE)).toBe(false);
  });

  it('the refusal names the time, as a conflict (exit 5) that never reaches the user: the route picks another', () => {
    const e = new SlotClaimedError(AT);
    expect(e.message).toBe(`${AT} is being booked, or was just booked, by another run of this workspace`);
    expect(e).toMatchObject({ code: 'SLOT_CLAIMED', exitCode: 5, slot: AT });
  });
});
