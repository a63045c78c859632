/**
 * Bookings sent whose answer was lost and that no re-run has resolved yet (issue 52 finding 7).
 * The ledger's rule refuses a new booking for such a lead (LEAD_OUTCOME_UNKNOWN): the booking
 * almost certainly went through, only its answer (and so the meeting's id) never arrived. Every
 * view of the record says so, with the way to confirm it (the same booking sent again: the
 * spec's retry, which cannot book twice), or a support engineer reading "no meetings" concludes
 * nothing was booked.
 */
import type { JournalEntry, State } from '../../state/index.js';
import { wasSent } from '../../state/journal.js';
import { unattributedScope, urlOfWorkspace } from '../../state/identity.js';
import { formatInZone } from '../../domain/time.js';
import { resendHint } from '../lead-guard.js';

/** What the ledger's rule counts as unresolved (state/ledger.ts leadRecord: `unknown`). */
export const isUnresolved = (e: JournalEntry): boolean =>
  e.outcome === 'unknown' && wasSent(e) && e.acknowledgedAt === undefined;

/** The workspace and, for records from before workspaces, the URL's unattributed scope (as leadRecord reads). */
function scopesOf(scope: string): string[] {
  const unattributed = unattributedScope(urlOfWorkspace(scope));
  return unattributed === scope ? [scope] : [scope, unattributed];
}

/** The unresolved bookings of one lead, or of the whole workspace without `email`, oldest first. */
export async function unresolvedAttempts(
  state: Pick<State, 'journal'>,
  scope: string,
  email?: string,
): Promise<JournalEntry[]> {
  const scopes = scopesOf(scope);
  const entries =
    email !== undefined
      ? await state.journal.ofLead(scopes, email)
      : (await Promise.all(scopes.map((s) => state.journal.listOpen(s)))).flat();
  return entries.filter(isUnresolved);
}

/**
 * An unresolved booking as an entry of `meetings ls --json` (and list_meetings): shaped like a
 * meeting (`id` null: never received; `date`: the time it asked for) so that a script reading the
 * array keeps working, told apart by `source: "unresolved"` and `status: "unknown"`.
 */
export interface UnresolvedView {
  id: null;
  source: 'unresolved';
  status: 'unknown';
  personEmail: string;
  date: string;
  duration: null;
  title: null;
  event: string;
  eventId: string | null;
  sentAt: string | null;
  /** no_answer (timeout, dropped connection, unreadable 2xx) or error_answer (a 5xx). */
  lostBy: 'no_answer' | 'error_answer';
  reservationId: string;
  workflowExecutionId: string | null;
  triggerId: string | null;
  recordedAt: string;
  history: [];
  /** How to learn its outcome: the same booking sent again as it was. */
  confirm: string;
}

export function unresolvedView(e: JournalEntry): UnresolvedView {
  return {
    id: null,
    source: 'unresolved',
    status: 'unknown',
    personEmail: e.personEmail,
    date: e.startTime,
    duration: null,
    title: null,
    event: e.event,
    eventId: e.eventId ?? null,
    sentAt: e.sentAt ?? null,
    lostBy: e.lostBy ?? 'no_answer',
    reservationId: e.reservationId,
    workflowExecutionId: e.workflowExecutionId,
    triggerId: e.triggerId ?? null,
    recordedAt: e.attemptedAt,
    history: [],
    confirm: resendHint(e),
  };
}

export const isUnresolvedView = (m: { source: string }): m is UnresolvedView => m.source === 'unresolved';

/** What it was and what its answer proves, for people: when it was sent, and that it almost certainly booked. */
export function unresolvedWhat(
  e: Pick<UnresolvedView, 'personEmail' | 'date' | 'event' | 'sentAt' | 'lostBy'>,
  zone: string,
): string {
  const sent = e.sentAt ? `sent ${formatInZone(e.sentAt, zone)}` : 'sent earlier';
  const how =
    e.lostBy === 'error_answer'
      ? 'the server answered an error, so it may have booked'
      : 'its answer was lost, and it almost certainly booked';
  return `a booking of ${e.personEmail} on ${e.event} at ${formatInZone(e.date, zone)} was ${sent}: ${how} (its meeting id was never received)`;
}

/** How to confirm it: the same booking sent again (the spec's retry: it cannot book twice). */
export const confirmHint = (e: Pick<UnresolvedView, 'confirm'>): string =>
  `to confirm, send the same booking again (it cannot book twice): ${e.confirm}`;

/** unresolvedWhat and confirmHint on one line. */
export function unresolvedLine(e: UnresolvedView, zone: string): string {
  return `${unresolvedWhat(e, zone)}; ${confirmHint(e)}`;
}
