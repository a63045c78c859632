/**
 * The routed booking (spec "Routed booking flow"): list triggers, fire, slots, book; four
 * requests on the happy path, one more slots request per "later times" page. Recovery follows
 * the spec's booking errors, and the lost-response rules stay in bookSlot (never a second booking):
 * - SLOT_TAKEN: the reservation stays usable: refresh the page with it and pick again;
 * - NO_HOST_AVAILABLE: pick another time from the same page (no request);
 * - RESERVATION_EXPIRED: a new reservation (slots without reservationId), pick again;
 * - CONFLICT: the scheduling session ended: fire again (asked: it repeats CRM writes and counts
 *   for routing fairness) and restart from the slots step.
 * A remembered scheduler outcome for the same trigger and email is offered for reuse first.
 *
 * The steps, each its own function over the route's session (session.ts): choose the trigger,
 * lead and answers; read the lead (started together); resolve an earlier lost attempt and ask
 * the lead rule (resolve.ts); reuse or fire (reuse-or-fire.ts); pick and book (book-loop.ts).
 */
import type { Outcome, Trigger } from '../../api/schemas.js';
import { ApiError, CliError, EXIT } from '../../errors.js';
import { answersKey, type JournalEntry } from '../../state/index.js';
import type { FireJournal } from '../fire.js';
import { buildResponses, isEmailField } from '../triggers.js';
import { pickAndBook } from './book-loop.js';
import type { RouteDeps } from './deps.js';
import { askLeadRule, resolveLostAttempt } from './resolve.js';
import { reuseOrFire } from './reuse-or-fire.js';
import type { RouteSession } from './session.js';
import type { RouteResult } from './types.js';

export type { RouteDeps, RouteLead, RouteLedger } from './deps.js';

export async function runRoute(deps: RouteDeps): Promise<RouteResult> {
  // A fire marked sent ahead (readLead) and not handed to its fire is taken back, however the route ends.
  const taken: { ahead?: FireJournal | undefined } = {};
  try {
    return await routeOnce(deps, taken);
  } finally {
    await taken.ahead?.abandonAhead?.();
    await deps.ledger.settle?.();
  }
}

async function routeOnce(deps: RouteDeps, taken: RouteSession['taken']): Promise<RouteResult> {
  const s = await chooseLead(deps, taken);
  const open = await readLead(s);
  const resolved = await resolveLostAttempt(s, open);
  if (resolved) return resolved;
  const answered = await askLeadRule(s, open);
  if (answered) return answered;
  const fired = await reuseOrFire(s);
  if ('finished' in fired) return fired.finished;
  const result: RouteResult = {
    status: 'none',
    trigger: s.trigger,
    email: s.email,
    executionId: fired.executionId,
    outcome: fired.outcome,
    responses: s.responses,
    reused: fired.reused,
    refires: 0,
    meeting: null,
    slot: null,
    reservationId: null,
    guests: { guests: [] },
  };
  const outcome = fired.outcome as Outcome | { type: string };
  if (outcome.type === 'redirect' || outcome.type === 'none') return { ...result, status: outcome.type };
  if (!('schedulingLinkId' in outcome) || outcome.type !== 'scheduler') return { ...result, status: 'other' };
  return pickAndBook(s, result, outcome.schedulingLinkId);
}

/** The trigger, the lead's email and the form's answers: the session every later step reads. */
async function chooseLead(deps: RouteDeps, taken: RouteSession['taken']): Promise<RouteSession> {
  const { api, asker } = deps;
  const { triggers } = await api.listTriggers();
  if (triggers.length === 0) {
    throw new CliError('NOT_FOUND', 'this workspace has no API triggers to route with', EXIT.notFound, {
      hint: 'publish a workflow with an API trigger, or check the profile and base URL in use',
    });
  }
  const trigger = await asker.trigger(triggers);
  const email = await asker.email(trigger);
  const formFields = trigger.fields.filter((f) => !isEmailField(f));
  // The answers come first: a remembered outcome belongs to the answers it was fired with.
  const formAnswers = await asker.form(trigger, formFields, email);
  const responses = buildResponses(trigger, { email, fields: formAnswers }, deps.options.inputNames);
  return {
    deps,
    trigger,
    email,
    responses,
    key: answersKey(responses, {}),
    base: { trigger, email, responses, refires: 0, guests: { guests: [] as string[] } },
    taken,
    withAnotherEmail: (error) => withAnotherEmail(deps, { triggers, trigger, email, formAnswers }, error),
  };
}

/**
 * WORK_EMAIL_REQUIRED: on a terminal the lead's email is asked again and the run starts over
 * with it, keeping every other answer (no re-typing the form, no second triggers request).
 */
async function withAnotherEmail(
  deps: RouteDeps,
  chosen: { triggers: Trigger[]; trigger: Trigger; email: string; formAnswers: Record<string, string> },
  error: unknown,
): Promise<RouteResult | undefined> {
  const { asker } = deps;
  const { triggers, trigger, formAnswers } = chosen;
  if (!(error instanceof ApiError) || error.code !== 'WORK_EMAIL_REQUIRED' || !asker.retryEmail) return undefined;
  const next = await asker.retryEmail(trigger, chosen.email, error.message);
  if (!next) return undefined;
  return runRoute({
    ...deps,
    api: { ...deps.api, listTriggers: async () => ({ triggers }) },
    asker: { ...asker, trigger: async () => trigger, email: async () => next, form: async () => formAnswers },
  });
}

/**
 * The lead's reads, started together (one round trip on a team state): the open attempt is
 * awaited here, the rest (session.early) by the steps that use them.
 */
async function readLead(s: RouteSession): Promise<JournalEntry | undefined> {
  const { deps, trigger, email, key } = s;
  const { ledger, options } = deps;
  // A lead with nothing on record is fired for: without a question between its reads and its
  // fire, the fire is marked sent in front of those reads (state/fires.ts recordSentIfNewLead: on a
  // team state they go out together), and the fire's own mark then costs no round trip. A mark
  // not followed by its fire is taken back.
  const ahead = options.fireAhead ? ledger.fireJournal?.(trigger, email, key) : undefined;
  const aheadId = ahead?.markAhead?.();
  if (aheadId !== undefined) s.taken.ahead = ahead;
  // Asked together with the open attempt (one round trip on a team state): the remembered outcome,
  // the fires whose answer was lost and the guard's record of the lead, used by the later steps
  // unless resolving an earlier attempt wrote to the ledger first (then asked again).
  s.early = {
    remembered: ledger.outcomes.lookup(options.scope, trigger.id, email, key),
    unanswered: ledger.unansweredFires?.(trigger, email, aheadId),
    guard: deps.lead?.askGuard?.(email),
  };
  s.early.remembered.catch(() => {});
  s.early.unanswered?.catch(() => {});
  // An earlier run of the same lead and answers whose booking answer was lost is resolved first
  // (resolveLostAttempt); so is one known to have booked (unless rebook).
  return ledger.journal.findOpenAttempt(options.scope, {
    personEmail: email,
    triggerId: trigger.id,
    answersKey: key,
    ...(options.rebook ? {} : { bookedSince: options.now() }),
  });
}
