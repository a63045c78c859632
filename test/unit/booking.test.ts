import { describe, expect, it } from 'vitest';
import type { BookRequest, Meeting, SlotsRequest, SlotsResult } from '../../src/api/schemas.js';
import { ApiError, OutcomeUnknownError } from '../../src/errors.js';
import { bookSlot, SlotTakenError, type BookDeps } from '../../src/domain/booking.js';
import { memoryJournal, type Journal } from '../../src/domain/journal.js';

const RES = '11111111-1111-4111-8111-111111111111';
const EXEC = '22222222-2222-4222-8222-222222222222';
const SCOPE = 'env@http://127.0.0.1:4010';
const START = '2026-12-01T14:00:00.000Z';
const now = () => new Date('2026-11-30T12:00:00Z');

const request = (extra: Partial<BookRequest> = {}): BookRequest => ({
  startTime: START,
  reservationId: RES,
  event: 'intro-call',
  personEmail: 'lead@company.com',
  ...extra,
});

const meeting: Meeting = {
  id: '33333333-3333-4333-8333-333333333333', eventId: 'ev', title: 'Intro', status: 'scheduled', date: START, duration: 15,
  meetingLink: null, conferencingType: 'zoom', location: null, personEmail: 'lead@company.com', additionalAttendees: [],
  cancellationReason: null, createdAt: START, updatedAt: START,
};

const apiError = (code: string, status = 409, details?: string[]) =>
  new ApiError({ status, code, message: `server says ${code}`, method: 'POST', path: '/v1/scheduling/meetings', ...(details ? { details } : {}) });
const lost = () => new OutcomeUnknownError('POST /v1/scheduling/meetings: no response within 1 s; the request may have been processed');

type BookStep = Meeting | Error;
function deps(steps: BookStep[], journal: Journal = memoryJournal(), slots: string[] = []) {
  const booked: BookRequest[] = [];
  const slotCalls: SlotsRequest[] = [];
  const d: BookDeps = {
    journal,
    scope: SCOPE,
    now,
    api: {
      book: async (body) => {
        booked.push(body);
        const step = steps.shift();
        if (!step) throw new Error('unexpected book call');
        if (step instanceof Error) throw step;
        return step;
      },
      slots: async (_event, body): Promise<SlotsResult> => {
        slotCalls.push(body);
        return { reservationId: body.reservationId ?? 'new', eventId: 'ev', expiresAt: START, slots, activeHost: null };
      },
    },
  };
  return { d, booked, slotCalls, journal };
}

async function failure(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected a failure');
}

describe('bookSlot', () => {
  it('books and journals the meeting (id, event, time) for reschedule', async () => {
    const { d, journal } = deps([meeting]);
    const r = await bookSlot(d, request());
    expect(r).toEqual({ status: 'booked', meeting });
    const [entry] = journal.all();
    expect(entry).toMatchObject({ scope: SCOPE, event: 'intro-call', outcome: 'booked', meetingId: meeting.id, startTime: START });
    expect(journal.findMeeting(SCOPE, meeting.id)?.event).toBe('intro-call');
  });

  it('turns a lost response into exit 7 saying it almost certainly booked, and journals the attempt as unknown', async () => {
    const { d, journal, booked } = deps([lost()]);
    const e = await failure(bookSlot(d, request({ workflowExecutionId: EXEC })));
    expect(e).toBeInstanceOf(OutcomeUnknownError);
    expect((e as OutcomeUnknownError).exitCode).toBe(7);
    expect(e.message).toMatch(/almost certainly succeeded.*do not book/);
    expect((e as OutcomeUnknownError).hint).toMatch(/run the same command again/);
    expect(booked).toHaveLength(1);
    expect(journal.all()).toEqual([
      expect.objectContaining({ outcome: 'unknown', reservationId: RES, workflowExecutionId: EXEC, personEmail: 'lead@company.com', startTime: START }),
    ]);
  });

  for (const code of ['CONFLICT', 'RESERVATION_USED', 'RESERVATION_EXPIRED']) {
    it(`reports already_booked when a retry after a lost response meets ${code}`, async () => {
      const { d, journal } = deps([lost(), apiError(code)]);
      await failure(bookSlot(d, request()));
      const r = await bookSlot(d, request());
      expect(r.status).toBe('already_booked');
      if (r.status !== 'already_booked') return;
      expect(r.code).toBe(code);
      expect(r.attempt).toMatchObject({ reservationId: RES, outcome: 'already_booked' });
      // The retry itself leaves no entry; the earlier attempt is now known to have booked.
      expect(journal.all().map((e) => e.outcome)).toEqual(['already_booked']);
    });
  }

  it('matches a lost attempt by workflow execution even with another reservation', async () => {
    const other = '44444444-4444-4444-8444-444444444444';
    const { d } = deps([lost(), apiError('CONFLICT')]);
    await failure(bookSlot(d, request({ workflowExecutionId: EXEC })));
    const r = await bookSlot(d, request({ workflowExecutionId: EXEC, reservationId: other }));
    expect(r.status).toBe('already_booked');
  });

  it('keeps saying already_booked on later runs', async () => {
    const { d } = deps([lost(), apiError('RESERVATION_USED'), apiError('RESERVATION_USED')]);
    await failure(bookSlot(d, request()));
    await bookSlot(d, request());
    expect((await bookSlot(d, request())).status).toBe('already_booked');
  });

  it('does not match attempts of another scope (profile or base URL)', async () => {
    const journal = memoryJournal();
    const a = deps([lost()], journal);
    await failure(bookSlot(a.d, request()));
    const b = deps([apiError('RESERVATION_USED')], journal);
    const e = await failure(bookSlot({ ...b.d, scope: 'prod@https://api.example.com' }, request()));
    expect(e).toBeInstanceOf(ApiError);
    expect((e as ApiError).code).toBe('RESERVATION_USED');
  });

  it('treats CONFLICT without an earlier lost response as an ended session: fire the trigger again', async () => {
    const { d, journal } = deps([apiError('CONFLICT')]);
    const e = (await failure(bookSlot(d, request({ workflowExecutionId: EXEC })))) as ApiError;
    expect(e.code).toBe('CONFLICT');
    expect(e.exitCode).toBe(5);
    expect(e.hint).toMatch(/schedctl trigger fire .* --email lead@company\.com/);
    expect(journal.all()).toEqual([]);
  });

  it('says to fetch slots again without a reservation on RESERVATION_EXPIRED without a lost response', async () => {
    const { d } = deps([apiError('RESERVATION_EXPIRED')]);
    const e = (await failure(bookSlot(d, request()))) as ApiError;
    expect(e.hint).toContain('without a reservation (`schedctl slots intro-call`)');
  });

  it('on SLOT_TAKEN fetches fresh slots with the same reservation and attaches the nearest', async () => {
    const free = ['2026-12-01T13:00:00.000Z', '2026-12-01T15:00:00.000Z', '2026-12-05T09:00:00.000Z', '2026-12-01T14:30:00.000Z',
      '2026-12-02T14:00:00.000Z', '2026-12-07T14:00:00.000Z'];
    const { d, slotCalls, journal } = deps([apiError('SLOT_TAKEN')], memoryJournal(), free);
    const e = await failure(bookSlot(d, request()));
    expect(e).toBeInstanceOf(SlotTakenError);
    const st = e as SlotTakenError;
    expect(st.exitCode).toBe(5);
    expect(slotCalls.length).toBeGreaterThan(0);
    expect(slotCalls.every((c) => c.reservationId === RES)).toBe(true);
    expect(st.nearestSlots).toEqual(['2026-12-01T13:00:00.000Z', '2026-12-01T14:30:00.000Z', '2026-12-01T15:00:00.000Z',
      '2026-12-02T14:00:00.000Z', '2026-12-05T09:00:00.000Z']);
    expect(st.toDocument()).toMatchObject({ error: { code: 'SLOT_TAKEN', status: 409 }, reservationId: RES, nearestSlots: st.nearestSlots });
    expect(journal.all()).toEqual([]);
  });

  it.each([
    ['NO_HOST_AVAILABLE', 409, undefined, /pick another slot/],
    ['WORK_EMAIL_REQUIRED', 400, undefined, /work email/],
    ['RESERVATION_MISMATCH', 400, undefined, /another event or link/],
    ['INVALID_REQUEST', 400, ['personEmail: must equal the fired email x@y.com'], /--email must be the email the trigger was fired with/],
    ['NOT_FOUND', 404, undefined, /--execution/],
    ['MISSING_SCOPE', 403, undefined, /scheduling:write/],
  ])('explains %s with a hint saying what to change', async (code, status, details, hint) => {
    const { d, journal } = deps([apiError(code, status, details)]);
    const e = (await failure(bookSlot(d, request({ workflowExecutionId: EXEC })))) as ApiError;
    expect(e.code).toBe(code);
    expect(e.status).toBe(status);
    expect(e.hint).toMatch(hint);
    expect(journal.all()).toEqual([]);
  });

  it('books normally after a lost attempt that never reached the server, dropping that attempt', async () => {
    const { d, journal } = deps([lost(), meeting]);
    await failure(bookSlot(d, request()));
    expect((await bookSlot(d, request())).status).toBe('booked');
    expect(journal.all().map((e) => e.outcome)).toEqual(['booked']);
  });
});
