/**
 * A time another booking of this workspace holds: sent and not yet answered (an attempt of
 * another lead, outcome unknown), or booked after the page that offered it was fetched (its
 * meeting recorded since). A route picking a time itself (`--slot first`, a bulk row) skips it
 * instead of sending a booking the server would likely refuse with SLOT_TAKEN (that request, and
 * one more for fresh times): machines of a team booking one link do not race for the same time.
 * Read in the step that marks the booking sent (Journal.begin: no round trip of its own), on
 * indexes that hold the workspace's unanswered attempts and one start time's meetings, whatever
 * the history's size. The page cannot tell whether another host was still free then: such a
 * time is skipped all the same (the next one is booked instead, no request lost).
 */
import { CliError, EXIT } from '../errors.js';
import { leadId } from './identity.js';
import type { Answer, Statement } from './sql/types.js';

/** How far apart two machines' clocks may be (the meeting's recordedAt is the other one's). */
export const CLOCK_SKEW_MS = 2000;
/** An unanswered attempt older than this is a lost answer (resolved by its own lead), not a booking in flight. */
export const IN_FLIGHT_MS = 60_000;

export interface ClaimQuery {
  scope: string;
  event: string;
  personEmail: string;
  startTime: string;
}

/**
 * The reads for the step that marks the booking sent (`since`: when the page was fetched, epoch
 * ms): other leads' unanswered attempts and meetings at that time, and the names the booking's
 * event goes by in this workspace (its id, slugs, link ids: event_aliases), so that a booking by
 * slug and one by link id of the same event meet.
 */
export function claimReads(q: ClaimQuery, since: number): Statement[] {
  const at = Date.parse(q.startTime);
  const lead = leadId(q.personEmail);
  return [
    [
      `SELECT body FROM schedctl_attempts WHERE workspace = ? AND outcome = 'unknown' AND sent = 1
       AND start_ms = ? AND lead <> ? AND touched_ms >= ?`,
      [q.scope, at, lead, since - IN_FLIGHT_MS],
    ],
    [
      'SELECT event, event_id, body FROM schedctl_meetings WHERE workspace = ? AND start_ms = ? AND lead <> ?',
      [q.scope, at, lead],
    ],
    [
      `SELECT alias, event_id FROM schedctl_event_aliases WHERE workspace = ? AND event_id IN
       (SELECT event_id FROM schedctl_event_aliases WHERE workspace = ? AND alias = ?)`,
      [q.scope, q.scope, q.event],
    ],
  ];
}

/** Whether the reads' answers (claimReads, in order) show the time held by another booking of the event. */
export function isClaimed(answers: readonly Answer[], q: ClaimQuery, since: number): boolean {
  const rows = (i: number) => (answers[i]?.rows ?? []) as Record<string, unknown>[];
  const body = (r: Record<string, unknown>) => JSON.parse(String(r.body)) as Record<string, unknown>;
  const names = new Set([q.event, ...rows(2).flatMap((r) => [String(r.alias), String(r.event_id)])]);
  const inFlight = rows(0).some((r) => names.has(String(body(r).event)));
  const bookedSince = rows(1).some(
    (r) =>
      (names.has(String(r.event)) || names.has(String(r.event_id))) &&
      Date.parse(String(body(r).recordedAt)) >= since - CLOCK_SKEW_MS,
  );
  return inFlight || bookedSince;
}

/**
 * Thrown from the booking's send hook, before anything is sent: the time is held by another
 * booking. A CliError, so the HTTP layer passes it on as it is (no retry); the route catches it
 * and picks the next free time: it never reaches the user.
 */
export class SlotClaimedError extends CliError {
  constructor(readonly slot: string) {
    super(
      'SLOT_CLAIMED',
      `${slot} is being booked, or was just booked, by another run of this workspace`,
      EXIT.conflict,
    );
  }
}
