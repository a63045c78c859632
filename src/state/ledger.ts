/**
 * The lead's record in one workspace, as the ledger's rule (domain/ledger.ts) reads it: its
 * upcoming meetings, its sent attempts whose outcome is unknown, and attempts known to have
 * booked whose meeting is in no record. Gathered from the journal and the meetings record,
 * whichever command, event, trigger, bulk row or MCP tool wrote them.
 */
import type { LeadRecord } from '../domain/ledger.js';
import type { State } from './index.js';
import { wasSent } from './journal.js';

export async function leadRecord(
  state: Pick<State, 'journal' | 'meetings'>,
  scope: string,
  email: string,
  now: Date,
): Promise<LeadRecord> {
  const [meetings, attempts] = await Promise.all([
    state.meetings.findUpcoming(scope, { email }, now),
    state.journal.ofLead(scope, email),
  ]);
  const recorded = new Set(meetings.map((m) => m.id));
  return {
    meetings,
    unknown: attempts.filter((a) => a.outcome === 'unknown' && wasSent(a) && a.acknowledgedAt === undefined),
    bookedUnrecorded: attempts.filter(
      (a) => a.outcome !== 'unknown' && !(Date.parse(a.startTime) < now.getTime()) && !recorded.has(a.meetingId ?? ''),
    ),
  };
}
