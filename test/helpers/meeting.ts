import type { Meeting } from '../../src/api/schemas.js';

/**
 * A scheduled meeting as the API returns it, for the unit tests of the record and the booking:
 * a 30-minute Zoom "Intro" of lead@acme.example on 2031-03-02 10:00 UTC, created and updated at
 * `at`; `over` sets what a test is about.
 */
export function meetingFixture(id: string, at: Date, over: Partial<Meeting> = {}): Meeting {
  return {
    id,
    eventId: '11111111-1111-4111-8111-111111111111',
    title: 'Intro',
    status: 'scheduled',
    date: '2031-03-02T10:00:00.000Z',
    duration: 30,
    meetingLink: null,
    conferencingType: 'zoom',
    location: null,
    personEmail: 'lead@acme.example',
    additionalAttendees: [],
    cancellationReason: null,
    createdAt: at.toISOString(),
    updatedAt: at.toISOString(),
    ...over,
  };
}
