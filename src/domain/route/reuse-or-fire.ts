/**
 * The route's workflow run: a remembered scheduler outcome of the same trigger, lead and answers
 * is offered for reuse; otherwise the trigger is fired (asked first: a fire repeats CRM writes
 * and counts for routing fairness).
 */
import type { Outcome, Trigger, TriggerFireResult } from '../../api/schemas.js';
import { CancelledError } from '../../errors.js';
import { answersKey } from '../../state/index.js';
import { fireTrigger, type FireJournal } from '../fire.js';
import type { RouteDeps } from './deps.js';
import type { RouteSession, UnansweredAsked } from './session.js';
import type { RouteResult } from './types.js';

/** The workflow run the route books for. */
export interface Fired {
  executionId: string;
  outcome: Outcome | { type: string };
  reused: boolean;
}

/** The route's workflow run, or the route's result when it started over with another email. */
export async function reuseOrFire(s: RouteSession): Promise<Fired | { finished: RouteResult }> {
  const { deps, trigger, email, responses } = s;
  const remembered = await (s.early?.remembered ??
    deps.ledger.outcomes.lookup(deps.options.scope, trigger.id, email, s.key));
  if (remembered.kind === 'match' && (await deps.asker.reuse(remembered.outcome, trigger))) {
    deps.notify({ type: 'reused', remembered: remembered.outcome });
    return { executionId: remembered.outcome.executionId, outcome: remembered.outcome.outcome, reused: true };
  }
  if (remembered.kind === 'different-answers') deps.notify({ type: 'answers_changed', previous: remembered.previous });
  if (!(await deps.asker.confirmFire({ trigger, email, responses }))) throw new CancelledError('nothing was fired');
  try {
    const journal = s.taken.ahead;
    s.taken.ahead = undefined; // the fire's now: its journal forgets the mark if it never leaves
    const fired = await fire(deps, trigger, email, responses, s.early?.unanswered, journal);
    return { executionId: fired.executionId, outcome: fired.outcome, reused: false };
  } catch (error) {
    const again = await s.withAnotherEmail(error);
    if (again) return { finished: again };
    throw error;
  }
}

export async function fire(
  deps: RouteDeps,
  trigger: Trigger,
  email: string,
  responses: Record<string, string>,
  /** The unanswered fires, when already asked (runRoute). */
  asked?: UnansweredAsked,
  /** The fire's journal, when made already (its fire marked sent ahead: runRoute). */
  journal?: FireJournal,
): Promise<TriggerFireResult> {
  const { ledger, options } = deps;
  // Not this run's own fire, when marked sent ahead with the lead's reads.
  const own = journal ? await journal.prepare() : undefined;
  const earlier = (await (asked ?? ledger.unansweredFires?.(trigger, email, own))) ?? [];
  if (earlier.length > 0) deps.notify({ type: 'unanswered_fires', trigger, email, fires: earlier });
  deps.notify({ type: 'firing', trigger, email });
  // Stops when its outcome cannot be recorded (nothing is booked), saying the run exists.
  const result = await fireTrigger(
    deps.api,
    trigger,
    { email, responses },
    journal ?? ledger.fireJournal?.(trigger, email, answersKey(responses, {})),
    (fired, along) =>
      ledger.outcomes.remember(
        options.scope,
        trigger.id,
        email,
        { ...fired, firedAt: options.now().toISOString(), answersKey: answersKey(responses, {}) },
        along,
        // With the booking's first step (its attempt marked sent): one round trip fewer on a team
        // state. Lost only with this process (killed before it): the re-run says the fire went unanswered.
        { withBooking: true },
      ),
  );
  deps.notify({ type: 'fired', executionId: result.executionId, outcome: result.outcome });
  return result;
}
