import { describe, expect, it } from 'vitest';
import { filterMeetings, hasWords, isGone, type MeetingView } from '../../src/run/meetings/records.js';
import { bookAgainCommand } from '../../src/run/reschedule/gone.js';

const LINK = '3f2a9c1e-8b4d-4e6f-9a1b-2c3d4e5f6a7b';
const EVENT = '6f1c2a0e-0000-4000-8000-000000000002';
const NOW = new Date('2026-11-30T12:00:00.000Z');

const view = (over: Partial<MeetingView> = {}): MeetingView => ({
  id: '6f1c2a0e-0000-4000-8000-000000000001',
  eventId: EVENT,
  title: 'Product Demo with ada@acme.example',
  status: 'scheduled',
  date: '2026-12-01T13:00:00.000Z',
  duration: 30,
  meetingLink: null,
  conferencingType: 'zoom',
  location: null,
  personEmail: 'ada@acme.example',
  additionalAttendees: [],
  cancellationReason: null,
  createdAt: '2026-11-20T10:00:00.000Z',
  updatedAt: '2026-11-20T10:00:00.000Z',
  source: 'booked',
  recordedAt: '2026-11-20T10:00:00.000Z',
  event: LINK,
  triggerId: 'trigger-1',
  triggerName: 'Inbound demo request',
  history: [],
  ...over,
});

describe('meetings found by words', () => {
  it('matches when every word occurs in the title, lead, event or trigger name, in any case', () => {
    const m = view();
    for (const text of ['product demo', 'DEMO product', 'inbound request', 'ada@ACME', LINK.slice(0, 8), 'demo  ada'])
      expect(hasWords(m, text), text).toBe(true);
    for (const text of ['product strategy', 'bob', 'emea']) expect(hasWords(m, text), text).toBe(false);
  });

  it('filters by words and by the eventIds a slug stands for, besides the event as booked', () => {
    const all = [
      view(),
      view({ id: 'other', title: 'Intro Call with bob@x.example', event: 'intro-call', eventId: 'e-2' }),
    ];
    expect(filterMeetings(all, { text: 'product demo' }).map((m) => m.id)).toEqual([all[0]!.id]);
    expect(filterMeetings(all, { event: 'sales-emea', eventIds: [EVENT] }).map((m) => m.id)).toEqual([all[0]!.id]);
    expect(filterMeetings(all, { event: 'sales-emea' })).toEqual([]);
    expect(filterMeetings(all, { event: 'intro-call' }).map((m) => m.id)).toEqual(['other']);
  });
});

describe('a gone meeting', () => {
  it('is not upcoming, but is listed when past ones are (--all)', () => {
    const gone = view({ goneAt: '2026-11-30T11:00:00.000Z' });
    expect(isGone(gone)).toBe(true);
    expect(isGone(view())).toBe(false);
    expect(filterMeetings([gone], { upcomingFrom: NOW })).toEqual([]);
    expect(filterMeetings([gone], {})).toEqual([gone]);
  });

  it('is booked anew by its route, or by a booking on its event', () => {
    expect(bookAgainCommand(view())).toBe(
      'schedctl route --trigger "Inbound demo request" --email ada@acme.example --slot first',
    );
    // With the trigger's required fields (looked up on the error's path), each a <field> to fill in.
    expect(bookAgainCommand(view(), ['company', 'region'])).toBe(
      "schedctl route --trigger \"Inbound demo request\" --email ada@acme.example --field 'company=<company>' --field 'region=<region>' --slot first",
    );
    expect(bookAgainCommand(view({ triggerId: undefined, event: 'intro-call' }))).toBe(
      'schedctl book intro-call --email ada@acme.example --start <time>',
    );
  });
});
