/**
 * One route's session: the trigger, lead and answers chosen at its start, which every later step
 * (resolve an earlier attempt, ask the lead rule, reuse or fire, pick and book) reads.
 */
import type { Trigger } from '../../api/schemas.js';
import type { Outcomes } from '../../state/index.js';
import type { BookDeps } from '../booking.js';
import type { FireJournal } from '../fire.js';
import type { RouteDeps, RouteLead, RouteLedger } from './deps.js';
import type { RouteResult } from './types.js';

export interface RouteSession {
  deps: RouteDeps;
  trigger: Trigger;
  email: string;
  /** What is fired: field name to value. */
  responses: Record<string, string>;
  /** answersKey(responses): a remembered outcome or an attempt belongs to the answers it was made with. */
  key: string;
  /** What every result answered from the ledger carries (no fire of this run, no re-fire). */
  base: ResultBase;
  /** A fire marked sent ahead and not handed to its fire yet: taken back however the route ends (runRoute). */
  taken: { ahead?: FireJournal | undefined };
  /** The reads started with the open attempt's; undefined once a step wrote to the ledger (then asked again). */
  early?: EarlyReads | undefined;
  /**
   * WORK_EMAIL_REQUIRED: on a terminal the lead's email is asked again and the run starts over
   * with it; undefined when not that error or no other email was given (the error stands).
   */
  withAnotherEmail: (error: unknown) => Promise<RouteResult | undefined>;
}

export type ResultBase = Pick<RouteResult, 'trigger' | 'email' | 'responses' | 'refires' | 'guests'>;

/** Asked together with the open attempt (one round trip on a team state). */
export interface EarlyReads {
  /** The remembered outcome of this trigger, lead and answers. */
  remembered: ReturnType<Outcomes['lookup']>;
  /** The fires whose answer was lost. */
  unanswered: UnansweredAsked | undefined;
  /** The guard's record of the lead (RouteLead.askGuard). */
  guard: unknown;
}

export type UnansweredAsked = ReturnType<NonNullable<RouteLedger['unansweredFires']>>;

/** What a booking of this route needs (domain/booking.ts): the wizard refreshes the page itself on SLOT_TAKEN. */
export function bookDepsOf(
  s: RouteSession,
  assertHeld: RouteLead['assertHeld'],
  claimedSince?: number | undefined,
): BookDeps {
  const { deps, trigger, key } = s;
  return {
    api: deps.api,
    journal: deps.ledger.journal,
    meetings: deps.ledger.meetings,
    outcomes: deps.ledger.outcomes,
    scope: deps.options.scope,
    now: deps.options.now,
    origin: { triggerId: trigger.id, triggerName: trigger.name, answersKey: key },
    suggestOnSlotTaken: false,
    assertHeld,
    claimedSince,
    learnEvent: deps.ledger.learnEvent,
    learnEventWrite: deps.ledger.learnEventWrite,
  };
}
