/** A ledger as the last schedctl before the tables wrote it (JSON documents): the migrations' fixtures. */
import type { LedgerDocuments } from '../../src/state/sql/documents.js';

export const NOW = new Date('2031-03-01T12:00:00.000Z');
export const WS = 'https://api.example.com#key:0123456789abcdef';
export const LEGACY = 'prod@https://api.example.com';

/** A ledger as the last schedctl wrote it: every kind of record, legacy scopes and keys included. */
export function documents(n: number): LedgerDocuments {
  const entries = [];
  const meetings: Record<string, never> = {};
  const fires = [];
  const outcomes: Record<string, unknown> = {};
  const aliases: Record<string, string> = {};
  for (let i = 0; i < n; i++) {
    const scope = i % 5 === 0 ? LEGACY : WS;
    const email = `Lead${i}@Example.com`;
    const date = new Date(NOW.getTime() + (i - n / 2) * 3_600_000).toISOString();
    entries.push({
      id: `a${i}`,
      scope,
      event: 'intro-call',
      reservationId: `r${i}`,
      workflowExecutionId: i % 2 ? `x${i}` : null,
      personEmail: email,
      startTime: date,
      attemptedAt: NOW.toISOString(),
      outcome: i % 3 === 0 ? 'unknown' : 'booked',
      ...(i % 3 === 0 ? {} : { meetingId: `m${i}` }),
      sentAt: NOW.toISOString(),
    });
    (meetings as Record<string, unknown>)[`${scope} m${i}`] = {
      id: `m${i}`,
      eventId: '11111111-1111-4111-8111-111111111111',
      title: 'Intro',
      status: 'scheduled',
      date,
      duration: 30,
      meetingLink: null,
      conferencingType: 'zoom',
      location: null,
      personEmail: email,
      additionalAttendees: [],
      cancellationReason: null,
      createdAt: NOW.toISOString(),
      updatedAt: NOW.toISOString(),
      scope,
      source: 'booked',
      recordedAt: NOW.toISOString(),
      event: 'intro-call',
      history: [],
    };
    fires.push({
      id: `f${i}`,
      scope,
      triggerId: 't1',
      personEmail: email,
      answersKey: 'k',
      preparedAt: NOW.toISOString(),
      state: 'answered',
      executionId: `x${i}`,
      outcomeType: 'scheduler',
    });
    // One outcome in two from before `scope` was stored: its key says it.
    outcomes[`${scope} t1 ${email.toLowerCase()}`] = {
      executionId: `x${i}`,
      outcome: {
        type: 'scheduler',
        schedulerUrl: 'https://x',
        schedulingLinkId: '22222222-2222-4222-8222-222222222222',
      },
      firedAt: NOW.toISOString(),
      email,
      triggerId: 't1',
      answersKey: 'k',
      ...(i % 2 ? { scope } : {}),
    };
    aliases[`${scope} link-${i}`] = '11111111-1111-4111-8111-111111111111';
  }
  return {
    journal: { entries } as LedgerDocuments['journal'],
    meetings: { meetings } as LedgerDocuments['meetings'],
    fires: { fires } as LedgerDocuments['fires'],
    outcomes: { outcomes } as LedgerDocuments['outcomes'],
    events: { aliases },
  };
}

export const FILE_OF = {
  journal: 'journal.json',
  meetings: 'meetings.json',
  outcomes: 'outcomes.json',
  fires: 'fires.json',
  events: 'events.json',
};
