/**
 * The lead's record in one workspace, as the ledger's rule (domain/lead-rule.ts) reads it: its
 * upcoming meetings, its sent attempts whose outcome is unknown, and attempts known to have
 * booked whose meeting is in no record. Gathered from the journal and the meetings record,
 * whichever command, event, trigger, bulk row or MCP tool wrote them; and from the records of
 * before workspaces that no profile could be given (the URL's unattributed scope): those are
 * every workspace's at that URL until resolved.
 */
import type { LeadRecord } from '../domain/lead-rule.js';
import { unattributedScope, urlOfWorkspace } from './identity.js';
import type { State } from './index.js';
import { wasSent, type JournalEntry } from './journal.js';

export async function leadRecord(
  state: Pick<State, 'journal' | 'meetings'>,
  scope: string,
  email: string,
  now: Date,
): Promise<LeadRecord> {
  const unattributed = unattributedScope(urlOfWorkspace(scope));
  const scopes = unattributed === scope ? [scope] : [scope, unattributed];
  // One query each, both workspaces in it: on a team state every query is a round trip.
  const [listed, attempts] = await Promise.all([
    state.meetings.list(scopes, { email, upcomingFrom: now }),
    state.journal.ofLead(scopes, email),
  ]);
  const live = listed.filter((m) => m.status !== 'canceled');
  const recorded = new Set(live.map((m) => m.id));
  const upcoming = (a: JournalEntry) => !(Date.parse(a.startTime) < now.getTime());
  return {
    meetings: live.filter((m) => m.goneAt === undefined),
    unknown: attempts.filter((a) => a.outcome === 'unknown' && wasSent(a) && a.acknowledgedAt === undefined),
    bookedUnrecorded: attempts.filter(
      (a) => a.outcome !== 'unknown' && a.goneAt === undefined && upcoming(a) && !recorded.has(a.meetingId ?? ''),
    ),
    // A 404 to a move is noted, never taken as the meeting's end (shared/ledger-rules.md).
    notFound: [
      ...live.flatMap((m) => (m.goneAt === undefined ? [] : [{ ...m, goneAt: m.goneAt }])),
      ...attempts.flatMap((a) =>
        a.goneAt !== undefined && a.meetingId !== undefined && upcoming(a) && !recorded.has(a.meetingId)
          ? [{ id: a.meetingId, date: a.startTime, goneAt: a.goneAt, event: a.event, scope: a.scope }]
          : [],
      ),
    ],
  };
}

/** Whether a record is one of before workspaces that no profile could be given. */
export const isUnattributed = (scope: string | undefined): boolean => scope?.endsWith('#unattributed') ?? false;
