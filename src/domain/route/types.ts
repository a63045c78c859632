/**
 * The routed booking as seen by whoever answers its questions. The same flow serves the
 * terminal wizard (answers from prompts) and its scriptable twin (answers from flags): only
 * the asker differs. Askers never send requests; the flow does, so the request economy and
 * the recovery rules live in one place.
 */
import type { Meeting, Outcome, Trigger, TriggerField } from '../../api/schemas.js';
import type { JournalEntry, RememberedOutcome } from '../../state/index.js';

export interface SlotPage {
  linkId: string;
  reservationId: string;
  expiresAt: string;
  /** Free start times of [from, to), minus the ones already refused in this session. */
  slots: string[];
  from: Date;
  to: Date;
  /** Earlier free times exist before this page (it does not start now): the asker may go back. */
  earlier?: boolean;
  /** The part of the day --slot named ("tue afternoon"): a terminal offers its times first. */
  within?: { from: Date; to: Date };
  /** The day the asker jumped to (its times are shown first). */
  openDay?: Date;
  /** Why the page is shown again, when it is. */
  reason?: 'slot_taken' | 'no_host' | 'expired' | 'refired';
}

export type SlotAnswer =
  /** `auto`: the run picked it itself (the first free time): another booking's time is skipped for it. */
  | { kind: 'slot'; slot: string; auto?: boolean }
  | { kind: 'later' }
  | { kind: 'earlier' }
  /** The times from this day on (a day typed in the picker, beyond the page). */
  | { kind: 'day'; day: Date };

export interface GuestDetails {
  firstName?: string;
  lastName?: string;
  phone?: string;
  guests: string[];
}

export interface FireSummary {
  trigger: Trigger;
  email: string;
  /** What will be sent: field name to value (select values, not labels). */
  responses: Record<string, string>;
}

export interface BookSummary {
  slot: string;
  email: string;
  linkId: string;
  executionId: string;
  guests: GuestDetails;
}

export interface RouteAsker {
  trigger(triggers: Trigger[]): Promise<Trigger>;
  email(trigger: Trigger): Promise<string>;
  /** Answers for the form's fields (the email field excluded); '' or absent = left empty. */
  form(trigger: Trigger, fields: TriggerField[], email: string): Promise<Record<string, string>>;
  /** A scheduler outcome for this trigger, email and answers is remembered: true = reuse it, false = fire again. */
  reuse(remembered: RememberedOutcome, trigger: Trigger): Promise<boolean>;
  confirmFire(summary: FireSummary): Promise<boolean>;
  pickSlot(page: SlotPage): Promise<SlotAnswer>;
  guests(): Promise<GuestDetails>;
  confirmBook(summary: BookSummary): Promise<boolean>;
  /**
   * The trigger refused the email (WORK_EMAIL_REQUIRED): another email for the lead, keeping every
   * other answer; undefined = give up (scripts: the error stands).
   */
  retryEmail?(trigger: Trigger, previous: string, reason: string): Promise<string | undefined>;
  /** The scheduling session ended (CONFLICT): fire the trigger again? */
  refire(executionId: string, trigger: Trigger): Promise<boolean>;
}

/** What happened, for the person watching (stderr); the flow's result is separate. */
export type RouteNotice =
  | { type: 'firing'; trigger: Trigger; email: string }
  | { type: 'fired'; executionId: string; outcome: Outcome | { type: string } }
  | { type: 'reused'; remembered: RememberedOutcome }
  /** A remembered outcome exists for this lead, but from other answers: it is not reused. */
  | { type: 'answers_changed'; previous: RememberedOutcome }
  /** An earlier run's booking answer was lost: its attempt is sent again as it was, to learn the outcome. */
  | { type: 'resolving'; attempt: JournalEntry }
  | { type: 'booking'; slot: string }
  | { type: 'slot_taken'; slot: string }
  /** Another run of the workspace is booking the picked time, or just booked it: the next free one is picked. */
  | { type: 'slot_claimed'; slot: string }
  | { type: 'no_host'; slot: string }
  | { type: 'expired' }
  | { type: 'session_ended'; executionId: string }
  /** Earlier fires of this lead and trigger whose answer was lost: each may have started a workflow run. */
  | { type: 'unanswered_fires'; trigger: Trigger; email: string; fires: { sentAt?: string | undefined }[] };

export type RouteStatus = 'booked' | 'already_booked' | 'redirect' | 'none' | 'other';

export interface RouteResult {
  status: RouteStatus;
  trigger: Trigger;
  email: string;
  executionId: string;
  outcome: Outcome | { type: string };
  /** The form responses of the run (sent with the last fire, or matching the reused outcome). */
  responses: Record<string, string>;
  reused: boolean;
  refires: number;
  meeting: Meeting | null;
  slot: string | null;
  reservationId: string | null;
  guests: GuestDetails;
  /** Local warnings (a confirmed booking the local record could not keep). */
  warnings?: string[];
  /** Earlier fires of this lead and trigger whose answer was lost, told before this run fired again. */
  unansweredFires?: { sentAt?: string | undefined }[];
  /** already_booked: the API's answer to the retry that showed the earlier attempt booked (ON_RECORD: the local record of meetings). */
  alreadyBookedCode?: string;
}
