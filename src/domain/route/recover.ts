/**
 * A refused booking, recovered from as the spec's booking errors say; any other refusal stands.
 */
import type { ApiError } from '../../errors.js';
import { refireHint } from '../../hints.js';
import { firstWindow, type Picking } from './picking.js';
import { fire } from './reuse-or-fire.js';
import type { RouteSession } from './session.js';
import type { GuestDetails, RouteResult } from './types.js';

/** Re-fires per run: each one starts a workflow run (CRM writes, routing fairness). */
export const MAX_REFIRES = 2;

/** A refused booking's recovery: undefined = pick again (the picking changed), or the route's result. */
type Recovery = (
  s: RouteSession,
  p: Picking,
  refused: { error: ApiError; slot: string; guests: GuestDetails },
) => Promise<RouteResult | undefined> | undefined;

/** The spec's booking errors the route recovers from; any other refusal stands. */
export const RECOVERIES = new Map<string, Recovery>([
  // The event wants a work email: the run is fired anew for the new email (its own lead).
  [
    'WORK_EMAIL_REQUIRED',
    async (s, _p, { error }) => {
      const again = await s.withAnotherEmail(error);
      if (again) return again;
      throw error;
    },
  ],
  // The reservation stays usable: the same window is asked again with it, and picked again.
  [
    'SLOT_TAKEN',
    (s, p, { slot }) => {
      s.deps.notify({ type: 'slot_taken', slot });
      p.refused.add(Date.parse(slot));
      p.page = undefined; // same window, same reservation: it stays usable
      p.reason = 'slot_taken';
      return undefined;
    },
  ],
  // Another time from the same page (no request).
  [
    'NO_HOST_AVAILABLE',
    (s, p, { slot }) => {
      s.deps.notify({ type: 'no_host', slot });
      p.refused.add(Date.parse(slot));
      p.reason = 'no_host';
      return undefined;
    },
  ],
  // A new reservation (slots without reservationId), from the first page.
  [
    'RESERVATION_EXPIRED',
    (s, p) => {
      s.deps.notify({ type: 'expired' });
      p.reservationId = undefined;
      p.window = firstWindow(s);
      p.page = undefined;
      p.reason = 'expired';
      return undefined;
    },
  ],
  ['CONFLICT', refireForEndedSession],
]);

/**
 * CONFLICT: the scheduling session ended: fire again (asked: it repeats CRM writes and counts for
 * routing fairness) and restart from the slots step.
 */
async function refireForEndedSession(
  s: RouteSession,
  p: Picking,
  { error, guests }: { error: ApiError; guests: GuestDetails },
): Promise<RouteResult | undefined> {
  const { deps, trigger, email, responses } = s;
  const { result } = p;
  deps.notify({ type: 'session_ended', executionId: result.executionId });
  if (result.refires >= MAX_REFIRES || !(await deps.asker.refire(result.executionId, trigger))) {
    throw error.withHint(refireHint(result.executionId));
  }
  await deps.ledger.outcomes.forgetExecution(deps.options.scope, result.executionId);
  const again = await fire(deps, trigger, email, responses);
  if (again.outcome.type !== 'scheduler' || !('schedulingLinkId' in again.outcome)) {
    // The workflow routed differently this time: report that outcome as the result.
    const status = again.outcome.type === 'redirect' || again.outcome.type === 'none' ? again.outcome.type : 'other';
    return { ...result, ...again, responses, refires: result.refires + 1, guests, status };
  }
  Object.assign(result, {
    executionId: again.executionId,
    outcome: again.outcome,
    responses,
    refires: result.refires + 1,
  });
  p.linkId = again.outcome.schedulingLinkId;
  p.reservationId = undefined;
  p.window = firstWindow(s);
  p.page = undefined;
  p.refused.clear();
  p.reason = 'refired';
  return undefined;
}
