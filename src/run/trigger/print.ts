/** Human text for fire results; imported only from actions (lazy). */
import type { Outcome, Trigger } from '../../api/schemas.js';
import { formatInZone, systemZone } from '../../domain/time.js';
import type { RememberedOutcome } from '../../state/index.js';
import { sanitizeText } from '../../ui/sanitize.js';

/** The result lines on stdout: the execution, the outcome, and for a scheduler the exact next commands (server text escaped). */
export function outcomeLines(
  result: { executionId: string; outcome: Outcome | { type: string } },
  email: string,
): string[] {
  return rawOutcomeLines(result, email).map(sanitizeText);
}

function rawOutcomeLines(
  result: { executionId: string; outcome: Outcome | { type: string } },
  email: string,
): string[] {
  const o = result.outcome as Outcome | { type: string; [k: string]: unknown };
  const lines = [`executionId       ${result.executionId}`];
  if (o.type === 'scheduler' && 'schedulingLinkId' in o) {
    const linkId = String(o.schedulingLinkId);
    lines.push(
      'outcome           scheduler (the lead can book)',
      `booking page      ${String(o.schedulerUrl)}`,
      `schedulingLinkId  ${linkId}`,
      '',
      `next: schedctl slots ${linkId}`,
      `then: schedctl book ${linkId} --start <time> --reservation <reservationId> --execution ${result.executionId} --email ${email}`,
    );
  } else if (o.type === 'redirect' && 'url' in o) {
    lines.push(
      'outcome           redirect (the workflow sends the lead elsewhere)',
      `url               ${String(o.url)}`,
    );
  } else if (o.type === 'none') {
    lines.push('outcome           none: the workflow finished without offering a meeting');
  } else {
    lines.push(`outcome           ${o.type} (not known to this schedctl; see --json for its fields)`);
  }
  return lines;
}

/** `zone`: where the fire's time is shown (the user's; this machine's zone by default). */
export function reuseWarning(r: RememberedOutcome, trigger: Trigger, zone = systemZone()): string[] {
  return [
    `a scheduler outcome for ${r.email} from "${trigger.name}" is already held (execution ${r.executionId}, fired ${formatInZone(r.firedAt, zone)}); reuse it instead of firing again.`,
    'Every fire starts a new workflow run: CRM writes and notifications repeat and routing fairness counts again. Add --force to fire anyway.',
  ].map(sanitizeText);
}

/** The notes `trigger fire` and `route` share, worded once so the two commands say the same thing. */
export const fireNotes = {
  // The trigger name and run id are server text: one line, escaped (a line break in them cannot forge a line).
  firing: (triggerName: string, email: string, target: { profileName: string | undefined; baseUrl: string }) =>
    `Firing "${sanitizeText(triggerName)}" for ${email} ${target.profileName ? `on profile "${target.profileName}"` : 'with SCHEDCTL_API_KEY'} at ${target.baseUrl}`,
  answersChanged: (email: string, executionId: string) =>
    `the remembered outcome for ${email} (workflow run ${sanitizeText(executionId)}) was fired with other answers: firing anew (the earlier outcome will not be reused)`,
};
