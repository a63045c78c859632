import { describe, expect, it } from 'vitest';
import type { Meeting } from '../../src/api/schemas.js';
import { describeMeeting } from '../../src/ui/meeting-view.js';

const meeting = (over: Partial<Meeting> = {}): Meeting => ({
  id: '6f1c2a0e-0000-4000-8000-000000000001',
  eventId: '6f1c2a0e-0000-4000-8000-000000000002',
  title: 'Intro Call',
  status: 'scheduled',
  date: '2026-12-01T13:00:00.000Z',
  duration: 30,
  meetingLink: 'https://zoom.example/j/1',
  conferencingType: 'zoom',
  location: null,
  personEmail: 'ada@acme.example',
  additionalAttendees: [],
  cancellationReason: null,
  createdAt: '2026-11-20T10:00:00.000Z',
  updatedAt: '2026-11-20T10:00:00.000Z',
  ...over,
});
const lines = (text: string, label: string) => text.split('\n').filter((l) => l.startsWith(`  ${label} `));

describe('describeMeeting', () => {
  it("shows one time per line: the display zone, then the lead's zone when it shows another wall time", () => {
    const text = describeMeeting(meeting(), 'Europe/Berlin', 'Booked', 'America/New_York');
    expect(lines(text, 'time')).toEqual(['  time       2026-12-01 14:00 GMT+1 (Europe/Berlin), 30 min']);
    // The zone's short name as Intl gives it (EST here, GMT-5 in some locales).
    expect(lines(text, 'lead time')).toEqual([
      expect.stringMatching(/^ {2}lead time {2}2026-12-01 08:00 (EST|GMT-5) \(America\/New_York\)$/),
    ]);
  });

  it("adds no lead line when the lead's zone is unknown, the same, or shows the same wall time", () => {
    for (const lead of [undefined, 'Europe/Berlin', 'Europe/Paris']) {
      expect(describeMeeting(meeting(), 'Europe/Berlin', 'Booked', lead)).not.toContain('lead time');
    }
  });

  it('labels an in-person meeting\'s place "location" and shows no link line', () => {
    const text = describeMeeting(
      meeting({ conferencingType: 'in_person', meetingLink: null, location: '1 Market St' }),
      'UTC',
      'Booked',
    );
    expect(lines(text, 'location')).toEqual(['  location   1 Market St']);
    expect(lines(text, 'link')).toEqual([]);
  });

  it('shows server text escaped, never as terminal control', () => {
    const text = describeMeeting(meeting({ title: 'Evil\u001b]0;pwned\u0007' }), 'UTC', 'Booked');
    expect(text).toContain('Evil\\x1b]0;pwned\\x07');
    expect(text).not.toContain('\u001b');
  });
});
