/** What `schedctl route` prints: the --json document, the human result, and progress notices on stderr. Loaded lazily. */
import type { Target } from '../../config/target.js';
import type { RouteNotice } from '../../domain/route/types.js';
import { formatInZone } from '../../domain/time.js';
import { describeMeeting } from '../../ui/meeting-view.js';
import { sanitizeText } from '../../ui/sanitize.js';
import type { Ui } from '../../ui/ui.js';
import { fireNotes } from '../trigger/print.js';
import type { RouteRun } from './types.js';
import { apiMeeting } from '../../documents/meeting.js';
import type { RouteResultDocument } from '../../documents/schemas.js';

/**
 * The one --json document (docs/json-output.md): a booking result (the same fields as `book`'s)
 * with what the route did before it. Absent values are null, never "".
 */
export function routeDocument(r: RouteRun): RouteResultDocument {
  const x = r.result;
  const outcome = fullOutcome(x.outcome);
  const linkId = outcome?.type === 'scheduler' ? String(outcome.schedulingLinkId) : null;
  return {
    status: x.status,
    meeting: x.meeting ? apiMeeting(x.meeting) : null,
    meetingId: x.meeting?.id ?? null,
    startTime: x.meeting?.date ?? x.slot,
    email: x.email,
    event: x.status === 'booked' || x.status === 'already_booked' ? (linkId ?? x.meeting?.eventId ?? null) : null,
    reservationId: x.reservationId,
    executionId: x.executionId || null,
    alreadyBookedCode: x.alreadyBookedCode ?? null,
    outcome,
    requests: r.requests,
    trigger: { id: x.trigger.id, name: x.trigger.name },
    schedulingLinkId: linkId,
    reused: x.reused,
    refires: x.refires,
    unansweredFires: (x.unansweredFires ?? []).map((f) => ({ sentAt: f.sentAt ?? null })),
  };
}

/**
 * The workflow's outcome as the API sent it, or null: a run answered from the record (or by
 * re-sending a lost attempt) knows only that it was a scheduler outcome, not its fields.
 */
function fullOutcome(o: RouteRun['result']['outcome']): RouteResultDocument['outcome'] {
  const fields = o as Record<string, unknown>;
  if (
    o.type === 'scheduler' &&
    (typeof fields.schedulingLinkId !== 'string' || typeof fields.schedulerUrl !== 'string')
  )
    return null;
  return o as RouteResultDocument['outcome'];
}

/** One wording for `trigger fire` and `route`: an earlier fire may have started a workflow run. */
export function unansweredFiresLine(
  fires: { sentAt?: string | undefined }[],
  email: string,
  trigger: string,
  time: (iso: string) => string,
): string {
  const when = fires.map((f) => (f.sentAt ? time(f.sentAt) : 'earlier')).join(', ');
  return sanitizeText(
    `an earlier fire of "${trigger}" for ${email} (sent ${when}) got no answer saying whether it ran: it may have started a workflow run (CRM writes and routing fairness repeat); firing again`,
  );
}

/** What a run that found the lead's meeting on record did send: at most the trigger list, to know the trigger. */
function sentBeforeRecord(requests: number): string {
  if (requests === 0) return 'nothing was sent';
  return requests === 1
    ? 'nothing was fired or booked (the one request read the trigger list, GET /v1/triggers, to find the trigger)'
    : `nothing was fired or booked (${requests} requests read the trigger list and the like)`;
}

/** Human result (stdout): the meeting, how to move it, and the same run as one scriptable command (server text escaped). */
export function routeLines(r: RouteRun): string[] {
  return rawRouteLines(r).map((line) => (line instanceof Shown ? line.text : sanitizeText(line)));
}

/** A block already built for display (its server fields sanitized one by one), kept with its own lines. */
class Shown {
  constructor(readonly text: string) {}
}

function rawRouteLines(r: RouteRun): Array<string | Shown> {
  const x = r.result;
  const o = x.outcome as { type: string; url?: string };
  switch (x.status) {
    case 'redirect':
      return [
        `The workflow sends ${x.email} elsewhere (outcome redirect, workflow run ${x.executionId}):`,
        `  ${o.url ?? ''}`,
      ];
    case 'none':
      return [
        `The workflow finished without offering a meeting (outcome none, workflow run ${x.executionId}): nothing to book.`,
      ];
    case 'other':
      return [
        `The workflow answered an outcome this schedctl does not know ("${o.type}", workflow run ${x.executionId}): see --json for its fields.`,
      ];
    case 'already_booked': {
      if (x.alreadyBookedCode === 'ON_RECORD' && x.meeting) {
        return [
          `Already booked: ${x.email} has meeting ${x.meeting.id} at ${formatInZone(x.meeting.date, r.zone)} from "${x.trigger.name}" with the same answers (booked through schedctl); ${sentBeforeRecord(r.requests)}.`,
          `To move it:      schedctl reschedule ${x.meeting.id} --start <time>`,
        ];
      }
      const run = x.executionId ? ` for workflow run ${x.executionId}` : '';
      if (x.alreadyBookedCode === 'ON_RECORD')
        // Answered from the local record (no booking was sent): never worded as an API answer.
        return [
          `Already booked: an earlier attempt${run} booked ${x.email} at ${x.slot ? formatInZone(x.slot, r.zone) : 'an unknown time'} (on record: a retry proved it booked after its answer was lost; its meeting id was never received); ${sentBeforeRecord(r.requests)}.`,
          `To move it:      schedctl reschedule <meeting-id> --start <time>   (the id from the scheduling app or the calendar invite)`,
        ];
      return [
        `Already booked: an earlier attempt${run} whose response was lost did book ${x.email} at ${x.slot ? formatInZone(x.slot, r.zone) : 'an unknown time'}; the API answered ${x.alreadyBookedCode} to this one, so no second meeting was created.`,
      ];
    }
    case 'booked': {
      const m = x.meeting;
      if (!m) return [`Booked ${x.email} (workflow run ${x.executionId}).`];
      return [
        new Shown(describeMeeting(m, r.zone, 'Booked', r.leadZone)),
        '',
        `To move it:      schedctl reschedule ${m.id} --start <time>`,
        `As one command:  ${r.commandLine}`,
      ];
    }
  }
}

/** Progress on stderr. Where it happens (profile, base URL) only in human mode; recovery always. */
export function noticePrinter(o: { ui: Ui; json: boolean; target: Target; zone: string; yes: boolean }) {
  const time = (iso: string) => formatInZone(iso, o.zone);
  const where = `${o.target.profileName ? `on profile "${o.target.profileName}"` : 'with SCHEDCTL_API_KEY'} at ${o.target.baseUrl}`;
  let announcedRefire = false;
  // Notices quote trigger names and server ids: data, shown escaped.
  const ui = {
    info: (line: string) => o.ui.info(sanitizeText(line)),
    warn: (line: string) => o.ui.warn(sanitizeText(line)),
  };
  return (n: RouteNotice): void => {
    switch (n.type) {
      case 'firing':
        if (!o.json) ui.info(fireNotes.firing(n.trigger.name, n.email, o.target));
        return;
      case 'fired':
        if (!o.json) ui.info(`Workflow run ${n.executionId}: outcome ${n.outcome.type}`);
        return;
      case 'reused':
        if (!o.json)
          ui.info(
            `Reusing the scheduler outcome of workflow run ${n.remembered.executionId} (fired ${formatInZone(n.remembered.firedAt, o.zone)}): no new workflow run`,
          );
        return;
      case 'answers_changed':
        ui.warn(fireNotes.answersChanged(n.previous.email, n.previous.executionId));
        return;
      case 'resolving':
        o.ui.warn(
          `an earlier run's booking for ${n.attempt.personEmail} (${time(n.attempt.startTime)}) ${n.attempt.lostBy === 'error_answer' ? 'got an error answer that does not say whether it booked' : 'got no answer'}: sending that attempt again to learn its outcome (it cannot book twice)`,
        );
        return;
      case 'booking':
        if (!o.json) ui.info(`Booking ${time(n.slot)} ${where}`);
        return;
      case 'slot_taken':
        ui.warn(`${time(n.slot)} was just taken (SLOT_TAKEN): fresh times under the same reservation follow`);
        return;
      case 'slot_claimed':
        ui.warn(
          `${time(n.slot)} is being booked, or was just booked, by another run of this workspace: the next free time follows`,
        );
        return;
      case 'no_host':
        ui.warn(`no host is free at ${time(n.slot)} (NO_HOST_AVAILABLE): pick another time`);
        return;
      case 'expired':
        ui.warn('the hold lapsed (RESERVATION_EXPIRED): fetching a new reservation');
        return;
      case 'unanswered_fires':
        o.ui.warn(unansweredFiresLine(n.fires, n.email, n.trigger.name, time));
        return;
      case 'session_ended':
        ui.warn(`the scheduling session of workflow run ${n.executionId} ended (CONFLICT): it can no longer book`);
        if (o.yes && !announcedRefire) {
          announcedRefire = true;
          ui.warn(
            '--yes: firing the trigger again once (a new workflow run repeats its CRM writes and counts for routing fairness), then picking a time anew',
          );
        }
        return;
    }
  };
}
