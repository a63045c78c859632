/**
 * What the routed booking (flow.ts) is given by its caller, grouped by who answers: the API's
 * four requests, the lead's stores (the ledger), the lead session's hooks, the asker and the
 * notices, and plain options. The flow sends every request itself; these only answer it.
 */
import type { Api } from '../../api/endpoints.js';
import type { Meeting, Trigger } from '../../api/schemas.js';
import type { Journal, JournalEntry, Meetings, Outcomes } from '../../state/index.js';
import type { BookDeps } from '../booking.js';
import type { FireJournal } from '../fire.js';
import type { FireInputNames } from '../triggers.js';
import type { RouteAsker, RouteNotice } from './types.js';

export interface RouteDeps {
  /** The spec's routed booking: list triggers, fire, slots, book. */
  api: RouteApi;
  asker: RouteAsker;
  notify: (notice: RouteNotice) => void;
  ledger: RouteLedger;
  /** None: no lead rule is asked and nothing is held (a unit test's route). */
  lead?: RouteLead | undefined;
  options: RouteOptions;
}

export type RouteApi = Pick<Api, 'listTriggers' | 'fireTrigger' | 'slots' | 'book'>;

/** The lead's stores: what the route writes down and reads back about the lead. */
export interface RouteLedger {
  journal: Pick<Journal, 'begin' | 'update' | 'remove' | 'path' | 'findOpenAttempt'>;
  outcomes: Pick<Outcomes, 'lookup' | 'remember' | 'forgetExecution'>;
  meetings?: Pick<Meetings, 'record'> & Partial<Pick<Meetings, 'get'>>;
  /** The ledger's event aliases learn which eventId a scheduling link books. */
  learnEvent?: ((event: string, eventId: string) => Promise<unknown>) | undefined;
  /** learnEvent as a write for the booking's one step (domain/booking.ts BookDeps). */
  learnEventWrite?: BookDeps['learnEventWrite'];
  /** The fires journal of this lead and trigger (a fire is written down before it is sent). */
  fireJournal?: ((trigger: Trigger, email: string, answersKey: string) => FireJournal) | undefined;
  /** Sent fires of this lead and trigger whose answer was lost (each may have started a run), but `except` (this run's own). */
  unansweredFires?:
    ((trigger: Trigger, email: string, except?: string) => Promise<{ sentAt?: string | undefined }[]>) | undefined;
  /** Writes what a fire's answer left for a booking that did not follow (state/together.ts FireAnswers). */
  settle?: (() => Promise<void>) | undefined;
}

/** The lead session's hooks (run/lead-guard.ts, state/lead-lock.ts). */
export interface RouteLead {
  /**
   * The lead already has an upcoming meeting from this trigger (local record): returns it when
   * this run repeats that booking (report it), throws or asks when it is something else.
   */
  guard?:
    | ((q: { trigger: Trigger; email: string; answersKey: string; asked?: unknown }) => Promise<RouteGuardResult>)
    | undefined;
  /**
   * Starts the guard's reads (the lead's record) at once, so that they go out with the open
   * attempt's (one round trip on a team state); what it returns is handed to guard as `asked`.
   */
  askGuard?: ((email: string) => unknown) | undefined;
  /** Right before a booking's bytes leave: throws when the lead's lock was taken over (nothing is sent). */
  assertHeld?: (() => void | Promise<void>) | undefined;
  /**
   * The lead is not held yet (a lead typed into the wizard): each booking holds it from its
   * confirmation until its answer is settled, and the guard reads the record again under the hold
   * (another run may have booked the lead while the wizard asked). Never the whole conversation.
   */
  holdLead?: (<T>(email: string, work: (assertHeld: () => Promise<void>) => Promise<T>) => Promise<T>) | undefined;
}

export interface RouteOptions {
  /** `${profile ?? 'env'}@${baseUrl}` (journal and outcome memory). */
  scope: string;
  now: () => Date;
  /** Length of one page of slots, in days (at most 63: one slots request per page). */
  days: number;
  /** Sent as the booking's leadTimezone when known. */
  leadTimezone?: string | undefined;
  /** A booking known to exist does not stop this run (a lost attempt is still resolved first). */
  rebook?: boolean | undefined;
  /** How the caller names the fire's inputs when the answers do not fit the form. */
  inputNames: FireInputNames;
  /** No question can come between the lead's reads and its fire (no terminal): the fire may be marked sent ahead (FireJournal.markAhead). */
  fireAhead?: boolean | undefined;
}

/** The lead guard's verdict (run/lead-guard.ts): book, or answer from the ledger. */
export type RouteGuardResult =
  { kind: 'go' } | { kind: 'repeat'; meeting: Meeting } | { kind: 'repeat_attempt'; attempt: JournalEntry };
