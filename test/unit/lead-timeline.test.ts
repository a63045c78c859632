import { describe, expect, it } from 'vitest';
import { proved, timeline, triggersOf } from '../../src/run/meetings/timeline.js';
import type { FireEntry, JournalEntry, MeetingRecord } from '../../src/state/index.js';

const attempt = (over: Partial<JournalEntry>): JournalEntry => ({
  id: 'a1',
  scope: 'ws',
  event: 'intro-call',
  reservationId: 'r1',
  workflowExecutionId: null,
  personEmail: 'ned@acme.example',
  startTime: '2030-01-07T15:00:00.000Z',
  attemptedAt: '2030-01-01T10:00:00.000Z',
  outcome: 'unknown',
  sentAt: '2030-01-01T10:00:01.000Z',
  ...over,
});

const meeting = (over: Partial<MeetingRecord>): MeetingRecord =>
  ({
    id: 'm1',
    eventId: 'e1',
    title: 'Intro',
    status: 'scheduled',
    date: '2030-01-07T15:00:00.000Z',
    duration: 30,
    meetingLink: null,
    conferencingType: null,
    location: null,
    personEmail: 'ned@acme.example',
    additionalAttendees: [],
    cancellationReason: null,
    createdAt: '2030-01-01T10:00:02.000Z',
    updatedAt: '2030-01-01T10:00:02.000Z',
    scope: 'ws',
    source: 'booked',
    recordedAt: '2030-01-01T10:00:02.000Z',
    event: 'intro-call',
    bookedBy: 'ann@laptop',
    history: [],
    ...over,
  }) as MeetingRecord;

describe('a lead timeline', () => {
  it('says what each answer proved: not sent, unknown, booked, already booked', () => {
    expect(proved(attempt({ sentAt: null }))).toBe('not_sent');
    expect(proved(attempt({}))).toBe('unknown');
    expect(proved(attempt({ outcome: 'booked' }))).toBe('booked');
    expect(proved(attempt({ outcome: 'already_booked' }))).toBe('already_booked');
    // Entries from before sentAt was kept were sent right after they were written.
    expect(proved(attempt({ sentAt: undefined }))).toBe('unknown');
  });

  it('orders entries by time, and at one instant a fire before its answer and a booking before its meeting', () => {
    const fire: FireEntry = {
      id: 'f1',
      scope: 'ws',
      triggerId: 't1',
      personEmail: 'ned@acme.example',
      answersKey: 'k',
      preparedAt: '2030-01-01T09:59:59.000Z',
      state: 'answered',
      sentAt: '2030-01-01T10:00:00.000Z',
      answeredAt: '2030-01-01T10:00:00.000Z',
      executionId: 'x1',
      outcomeType: 'scheduler',
    };
    const entries = timeline({
      fires: [fire],
      outcomes: [],
      attempts: [attempt({ outcome: 'booked', meetingId: 'm1', sentAt: '2030-01-01T10:00:02.000Z' })],
      meetings: [
        meeting({
          history: [
            {
              from: '2030-01-07T15:00:00.000Z',
              to: '2030-01-08T15:00:00.000Z',
              at: '2030-01-02T08:00:00.000Z',
              by: 'bo@desk',
            },
          ],
          refused: [{ startTime: '2030-01-09T15:00:00.000Z', at: '2030-01-02T07:00:00.000Z' }],
          goneAt: '2030-01-03T08:00:00.000Z',
        }),
      ],
    });
    expect(entries.map((e) => e.kind)).toEqual([
      'fire',
      'fire_answer',
      'booking',
      'meeting',
      'move_refused',
      'move',
      'not_found',
    ]);
    expect(entries.find((e) => e.kind === 'meeting')).toMatchObject({ by: 'ann@laptop', meetingId: 'm1' });
    expect(entries.find((e) => e.kind === 'move')).toMatchObject({ by: 'bo@desk', to: '2030-01-08T15:00:00.000Z' });
  });

  it('gives an unknown outcome the command that confirms it, and a retry proof an entry of its own', () => {
    const [unknown] = timeline({ fires: [], outcomes: [], attempts: [attempt({})], meetings: [] });
    expect(unknown).toMatchObject({ kind: 'booking', outcome: 'unknown', lostBy: 'no_answer' });
    expect(unknown!.confirm).toContain('--reservation r1');
    const settled = timeline({
      fires: [],
      outcomes: [],
      attempts: [attempt({ outcome: 'already_booked', updatedAt: '2030-01-01T11:00:00.000Z' })],
      meetings: [],
    });
    expect(settled.map((e) => e.kind)).toEqual(['booking', 'booking_settled']);
    expect(settled[0]!.confirm).toBeUndefined();
  });

  it('finds the triggers a lead was fired or routed for, once each', () => {
    expect(
      triggersOf({
        fires: [{ triggerId: 't1' } as FireEntry],
        attempts: [attempt({ triggerId: 't1' }), attempt({})],
        meetings: [meeting({ triggerId: 't2' })],
      }),
    ).toEqual(['t1', 't2']);
  });
});
