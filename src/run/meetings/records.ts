/**
 * The local record of meetings as `meetings ls/show` and `reschedule --email` see it: the
 * meetings file plus the bookings recovered after a lost response (journal entries known to
 * have booked, whose meeting id the API never sent back).
 */
import type { Meeting } from '../../api/schemas.js';
import type { JournalEntry, MeetingRecord, State } from '../../state/index.js';
import { notOver } from '../../state/meetings.js';
import type { UnresolvedView } from './unresolved.js';

/** A recorded meeting without its scope (the workspace is the command's own). */
export type MeetingView = Omit<MeetingRecord, 'scope'>;
/** A booking known to exist from a retry's answer, not from the API's Meeting. */
export type RecoveredView = {
  [K in keyof Meeting]: K extends 'personEmail' | 'date' ? string : K extends 'status' ? 'scheduled' : null;
} & Pick<MeetingRecord, 'source' | 'recordedAt' | 'event' | 'history'> & {
    reservationId: string;
    workflowExecutionId: string | null;
  };
export type AnyMeetingView = MeetingView | RecoveredView;
/** An entry of `meetings ls`: a meeting on record, or a booking whose answer was lost (unresolved.ts). */
export type ListedView = AnyMeetingView | UnresolvedView;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether the meeting was booked through a scheduling link (its `event` is the link's id, not the event's). */
export function bookedViaLink(m: Pick<AnyMeetingView, 'event' | 'eventId'>): boolean {
  return UUID.test(m.event) && m.event.toLowerCase() !== (m.eventId ?? '').toLowerCase();
}

/** The event as the table shows it: the slug or id it was booked with, or `link 3f2a9c1e…` for a scheduling link. */
export function eventLabel(m: Pick<AnyMeetingView, 'event' | 'eventId'>): string {
  // The link's id cut to its first 8 hex digits (as git cuts a hash): the table stays within
  // 120 columns; `meetings show` and --json carry it whole.
  return bookedViaLink(m) ? `link ${m.event.slice(0, 8)}…` : m.event;
}

/** Whether the API answered NOT_FOUND for it (a move's 404): the server no longer has it. */
export function isGone(m: ListedView): m is MeetingView & { goneAt: string } {
  return 'goneAt' in m && typeof m.goneAt === 'string';
}

export function view(record: MeetingRecord): MeetingView {
  const { scope: _scope, ...rest } = record;
  return rest;
}

function recovered(e: JournalEntry): RecoveredView {
  return {
    id: null,
    eventId: null,
    title: null,
    status: 'scheduled',
    date: e.startTime,
    duration: null,
    meetingLink: null,
    conferencingType: null,
    location: null,
    personEmail: e.personEmail,
    additionalAttendees: null,
    cancellationReason: null,
    createdAt: null,
    updatedAt: null,
    source: 'recovered',
    recordedAt: e.updatedAt ?? e.attemptedAt,
    event: e.event,
    history: [],
    reservationId: e.reservationId,
    workflowExecutionId: e.workflowExecutionId,
  };
}

/**
 * The meetings of this workspace on record that may pass `filter` (the database narrows by the
 * indexed conditions; filterMeetings decides), earliest first.
 */
export async function allMeetings(state: State, scope: string, filter: MeetingFilter = {}): Promise<AnyMeetingView[]> {
  const [records, entries] = await Promise.all([state.meetings.list(scope, filter), state.journal.recovered(scope)]);
  const lost = entries.map(recovered);
  return [...records.map(view), ...lost].sort((a, b) => Date.parse(a.date) - Date.parse(b.date));
}

export interface MeetingFilter {
  email?: string | undefined;
  event?: string | undefined;
  /** The eventIds `event` stands for (an event's or link's slug resolved): matched besides `event` as booked. */
  eventIds?: readonly string[] | undefined;
  /**
   * Words that must all occur (case-insensitive) in the title, lead, event or routing trigger's
   * name. Not indexed: it reads the workspace's meetings that pass the other conditions.
   */
  text?: string | undefined;
  from?: Date | undefined;
  to?: Date | undefined;
  /** Only meetings not over at this instant (in progress counts); undefined: past ones too. */
  upcomingFrom?: Date | undefined;
  /**
   * With upcomingFrom: also the upcoming meetings the API answered 404 for (`meetings ls` shows
   * them for what they are; a move by --email passes them over).
   */
  withGone?: boolean | undefined;
  /** At most this many, the first in time order (the database stops there when it can). */
  limit?: number | undefined;
}

export function filterMeetings<T extends ListedView>(all: T[], f: MeetingFilter): T[] {
  const email = f.email?.trim().toLowerCase();
  return all.filter((m) => {
    const at = Date.parse(m.date);
    return (
      (email === undefined || m.personEmail.toLowerCase() === email) &&
      (f.event === undefined ||
        m.event === f.event ||
        m.eventId === f.event ||
        (m.eventId !== null && (f.eventIds ?? []).includes(m.eventId))) &&
      (f.text === undefined || hasWords(m, f.text)) &&
      (f.from === undefined || at >= f.from.getTime()) &&
      (f.to === undefined || at < f.to.getTime()) &&
      (f.upcomingFrom === undefined || (notOver(m, f.upcomingFrom.getTime()) && (f.withGone === true || !isGone(m))))
    );
  });
}

/** Whether every word of `text` occurs in the meeting's title, lead, event or trigger name (case-insensitive). */
export function hasWords(m: ListedView, text: string): boolean {
  const hay = [m.title, m.personEmail, m.event, m.eventId, 'triggerName' in m ? m.triggerName : undefined]
    .filter((v): v is string => typeof v === 'string')
    .join('\n')
    .toLowerCase();
  return text
    .toLowerCase()
    .split(/\s+/)
    .filter(Boolean)
    .every((word) => hay.includes(word));
}

/**
 * Where a meeting that is not on record may be, said honestly: with this machine's files, the
 * record holds what schedctl booked or moved here; other machines' meetings are seen through a
 * team state (docs/team-state.md). With a team state, the record is every machine's already.
 */
export async function otherMachinesHint(state: Pick<State, 'backend'>, short = false): Promise<string> {
  let team = false;
  try {
    team = (await state.backend()).kind === 'postgres';
  } catch {
    // A team state that cannot be reached has failed the command before this.
  }
  if (short && !team) return "other machines' meetings are seen through a team state (docs/team-state.md)";
  return team
    ? "the team state's record holds every machine's meetings booked or moved through schedctl"
    : "the record is this machine's: meetings booked or moved on other machines are seen through a team state (docs/team-state.md: SCHEDCTL_STATE_URL=postgres://… then `schedctl state push` on each machine)";
}
