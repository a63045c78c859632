/** shared/ledger-rules.md: "the identical request, resolved as booked → answer already_booked with that meeting, send nothing". */
import { describe, expect, it } from 'vitest';
import type { BookRequest } from '../../src/api/schemas.js';
import { answeredFromLedger, resolvedAsBooked } from '../../src/domain/booking.js';
import type { JournalEntry } from '../../src/state/index.js';

const RES = '11111111-1111-4111-8111-111111111111';
const EXEC = '22222222-2222-4222-8222-222222222222';
const START = '2031-03-03T14:00:00.000Z';
const request: BookRequest = { startTime: START, reservationId: RES, event: 'intro', personEmail: 'Ada@Acme.example' };
const entry = (patch: Partial<JournalEntry> = {}): JournalEntry => ({
  id: 'a1',
  scope: 's',
  event: 'intro',
  reservationId: RES,
  workflowExecutionId: null,
  personEmail: 'ada@acme.example',
  startTime: START,
  attemptedAt: '2031-03-01T12:00:00.000Z',
  outcome: 'booked',
  meetingId: 'm1',
  request: { ...request },
  ...patch,
});

describe('resolvedAsBooked', () => {
  it('finds the identical request resolved as booked (or proved booked by a retry)', () => {
    const booked = entry();
    expect(resolvedAsBooked(booked, request)).toBe(booked);
    const proved = entry({ outcome: 'already_booked' });
    expect(resolvedAsBooked(proved, request)).toBe(proved);
    // The same instant written another way, the lead in another case: the same request.
    expect(resolvedAsBooked(booked, { ...request, startTime: '2031-03-03T16:00:00+02:00' })).toBe(booked);
  });

  it('is nothing without a prior, or for one whose outcome is unknown (the spec retry sends it)', () => {
    expect(resolvedAsBooked(undefined, request)).toBeUndefined();
    expect(resolvedAsBooked(entry({ outcome: 'unknown' }), request)).toBeUndefined();
  });

  it('is nothing for another reservation, run, lead or time', () => {
    expect(resolvedAsBooked(entry(), { ...request, reservationId: 'other' })).toBeUndefined();
    expect(resolvedAsBooked(entry(), { ...request, workflowExecutionId: EXEC })).toBeUndefined();
    expect(resolvedAsBooked(entry({ workflowExecutionId: EXEC }), request)).toBeUndefined();
    expect(
      resolvedAsBooked(entry({ workflowExecutionId: EXEC }), { ...request, workflowExecutionId: EXEC }),
    ).toBeDefined();
    expect(resolvedAsBooked(entry(), { ...request, personEmail: 'bob@acme.example' })).toBeUndefined();
    expect(resolvedAsBooked(entry(), { ...request, startTime: '2031-03-03T15:00:00.000Z' })).toBeUndefined();
  });

  it('compares with the time first sent, not the meeting’s time after a move', () => {
    const moved = entry({ startTime: '2031-03-04T09:00:00.000Z' });
    expect(resolvedAsBooked(moved, request)).toBe(moved);
    expect(resolvedAsBooked(moved, { ...request, startTime: '2031-03-04T09:00:00.000Z' })).toBeUndefined();
    // An entry without its request (written before it was kept): its own time.
    const { request: _dropped, ...old } = moved;
    expect(resolvedAsBooked(old, { ...request, startTime: '2031-03-04T09:00:00.000Z' })).toBe(old);
    expect(resolvedAsBooked({ ...old, request: { startTime: 42 } }, request)).toBeUndefined();
  });

  it('answers already_booked from the record, with no warning', () => {
    const booked = entry();
    expect(answeredFromLedger(booked)).toEqual({
      status: 'already_booked',
      code: 'ON_RECORD',
      attempt: booked,
      warnings: [],
    });
  });
});
