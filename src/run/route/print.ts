/** What `schedctl route` prints: the --json document, the human result, and progress notices on stderr. Loaded lazily. */
import type { Target } from '../../config/target.js';
import type { RouteNotice } from '../../domain/route/types.js';
import { formatInZone } from '../../domain/time.js';
import { describeMeeting } from '../../ui/meeting-view.js';
import type { Ui } from '../../ui/ui.js';
import type { RouteRun } from './types.js';

/** The one --json document (README "route --json"). */
export function routeDocument(r: RouteRun) {
  const x = r.result;
  const linkId = x.outcome.type === 'scheduler' && 'schedulingLinkId' in x.outcome ? String(x.outcome.schedulingLinkId) : null;
  return {
    status: x.status,
    executionId: x.executionId,
    outcome: x.outcome,
    meeting: x.meeting,
    requests: r.requests,
    trigger: { id: x.trigger.id, name: x.trigger.name },
    email: x.email,
    schedulingLinkId: linkId,
    reservationId: x.reservationId,
    slot: x.slot,
    reused: x.reused,
    refires: x.refires,
    ...(x.alreadyBookedCode ? { alreadyBookedCode: x.alreadyBookedCode } : {}),
  };
}

/** Human result (stdout): the meeting, how to move it, and the same run as one scriptable command. */
export function routeLines(r: RouteRun): string[] {
  const x = r.result;
  const o = x.outcome as { type: string; url?: string };
  switch (x.status) {
    case 'redirect':
      return [`The workflow sends ${x.email} elsewhere (outcome redirect, workflow run ${x.executionId}):`, `  ${o.url ?? ''}`];
    case 'none':
      return [`The workflow finished without offering a meeting (outcome none, workflow run ${x.executionId}): nothing to book.`];
    case 'other':
      return [`The workflow answered an outcome this schedctl does not know ("${o.type}", workflow run ${x.executionId}): see --json for its fields.`];
    case 'already_booked': {
      return [
        `Already booked: an earlier attempt for workflow run ${x.executionId} whose response was lost did book ${x.email} at ${formatInZone(x.slot!, r.zone)}; the API answered ${x.alreadyBookedCode} to this one, so no second meeting was created.`,
      ];
    }
    case 'booked': {
      const m = x.meeting!;
      return [
        describeMeeting(m, r.zone, 'Booked'),
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
  return (n: RouteNotice): void => {
    switch (n.type) {
      case 'firing':
        if (!o.json) o.ui.info(`Firing "${n.trigger.name}" for ${n.email} ${where}`);
        return;
      case 'fired':
        if (!o.json) o.ui.info(`Workflow run ${n.executionId}: outcome ${n.outcome.type}`);
        return;
      case 'reused':
        if (!o.json) o.ui.info(`Reusing the scheduler outcome of workflow run ${n.remembered.executionId} (fired ${n.remembered.firedAt}): no new workflow run`);
        return;
      case 'booking':
        if (!o.json) o.ui.info(`Booking ${time(n.slot)} ${where}`);
        return;
      case 'slot_taken':
        o.ui.warn(`${time(n.slot)} was just taken (SLOT_TAKEN): fresh times under the same reservation follow`);
        return;
      case 'no_host':
        o.ui.warn(`no host is free at ${time(n.slot)} (NO_HOST_AVAILABLE): pick another time`);
        return;
      case 'expired':
        o.ui.warn('the hold lapsed (RESERVATION_EXPIRED): fetching a new reservation');
        return;
      case 'session_ended':
        o.ui.warn(`the scheduling session of workflow run ${n.executionId} ended (CONFLICT): it can no longer book`);
        if (o.yes && !announcedRefire) {
          announcedRefire = true;
          o.ui.warn('--yes: firing the trigger again once (a new workflow run repeats its CRM writes and counts for routing fairness), then picking a time anew');
        }
        return;
    }
  };
}
