/**
 * The lead's record in one workspace, as the ledger's rule (domain/ledger.ts) reads it: its
 * upcoming meetings, its sent attempts whose outcome is unknown, and attempts known to have
 * booked whose meeting is in no record. Gathered from the journal and the meetings record,
 * whichever command, event, trigger, bulk row or MCP tool wrote them; and from the records of
 * before workspaces that no profile could be given (the URL's unattributed scope): those are
 * every workspace's at that URL until resolved.
 */
import type { LeadRecord } from '../domain/ledger.js';
import { unattributedScope, urlOfWorkspace } from './identity.js';
import type { State } from './index.js';
import { wasSent } from './journal.js';

export async function leadRecord(
  state: Pick<State, 'journal' | 'meetings'>,
  scope: string,
  email: string,
  now: Date,
): Promise<LeadRecord> {
  const unattributed = unattributedScope(urlOfWorkspace(scope));
  const scopes = unattributed === scope ? [scope] : [scope, unattributed];
  // One query each, both workspaces in it: on a team state every query is a round trip.
  const [meetings, attempts] = await Promise.all([
    state.meetings.findUpcoming(scopes, { email }, now),
    state.journal.ofLead(scopes, email),
  ]);
  const recorded = new Set(meetings.map((m) => m.id));
  return {
    meetings,
    unknown: attempts.filter((a) => a.outcome === 'unknown' && wasSent(a) && a.acknowledgedAt === undefined),
    bookedUnrecorded: attempts.filter(
      (a) =>
        a.outcome !== 'unknown' &&
        a.goneAt === undefined &&
        !(Date.parse(a.startTime) < now.getTime()) &&
        !recorded.has(a.meetingId ?? ''),
    ),
  };
}

/** Whether a record is one of before workspaces that no profile could be given. */
export const isUnattributed = (scope: string | undefined): boolean => scope?.endsWith('#unattributed') ?? false;
