/**
 * What to do next after a failed tool call, in the tools' words: the CLI's hints (src/hints.ts,
 * run/lead-guard.ts) name commands and flags, which mean nothing to a model holding tools. The
 * common API codes get a hint of their own built from the call's arguments; anything else keeps
 * the CLI's hint with its commands and flags translated (./call.ts renameFlags for the flags).
 */
import { shown } from './quote.js';

export interface HintInput {
  tool: string;
  code: string;
  args: Record<string, unknown>;
  /** The CLI's hint and message, for what only they carry (a meeting id, a workflow run). */
  cliHint: string | undefined;
  message: string;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() ? v.trim() : undefined);

/** The hint in this tool's words; undefined: keep the CLI's, translated. */
export function toolHint(h: HintInput): string | undefined {
  const event = str(h.args.event);
  const res = str(h.args.reservation_id);
  const ev = event ? ` with event ${shown(event)}` : '';
  const slotsAgain = `find_slots${ev} and no reservation_id`;
  const slotsSame = `find_slots${ev}${res ? ` and reservation_id ${shown(res)}` : ''}`;
  switch (h.code) {
    case 'LEAD_HAS_MEETING': {
      const id =
        /schedctl reschedule (\S+) --start/.exec(h.cliHint ?? '')?.[1] ?? /meeting (\S+) at/.exec(h.message)?.[1];
      const move = id ? `reschedule_meeting with meeting_id ${shown(id)} and start` : 'reschedule_meeting';
      return `to move the meeting it has, call ${move}; to book a second meeting anyway, first ask the person, and only if they say so call ${h.tool} again with the same arguments plus rebook: true`;
    }
    case 'LEAD_OUTCOME_UNKNOWN':
      if (h.tool === 'reschedule_meeting')
        return `to confirm the booking, repeat that earlier call exactly as it was (book_meeting with the same event, start, reservation_id, email and execution_id, or route_lead with the same trigger and answers; list_meetings shows it as unresolved): it cannot book twice, and its meeting is then on record; then call reschedule_meeting again`;
      return `an earlier booking of this lead may have made a meeting: to learn its outcome, repeat that earlier call exactly as it was (it cannot book twice); to book anyway, first ask the person, and only if they say so call ${h.tool} again with the same arguments plus rebook: true (a meeting may already exist)`;
    case 'LEAD_LOCK_LOST':
    case 'LEAD_BUSY':
      return `another schedctl run is booking this lead: call ${h.tool} again with the same arguments once it has finished; it will find that booking`;
    case 'SLOT_TAKEN':
      return h.tool === 'book_meeting'
        ? `the reservation is still usable: call book_meeting again with one of the nearest free times above as start (same event, reservation_id and email), or look further with ${slotsSame}`
        : undefined;
    case 'NO_HOST_AVAILABLE':
      return `no host is free at that time: pick another time from ${slotsSame}`;
    case 'RESERVATION_EXPIRED':
      return `the reservation's hold lapsed: call ${slotsAgain}, then book with the new reservation_id`;
    case 'RESERVATION_USED':
      return h.tool === 'find_slots'
        ? `the reservation was already used by a booking: call ${slotsAgain}`
        : `this reservation was already spent, usually by an earlier booking whose answer was lost: check list_meetings before booking again; for another meeting call ${slotsAgain}`;
    case 'RESERVATION_MISMATCH':
      return `the reservation belongs to another event or link: pass the event you called find_slots with, or call ${slotsAgain}`;
    case 'WORK_EMAIL_REQUIRED':
      return `pass the lead's company email address as email, not a personal one such as gmail.com${h.tool === 'fire_trigger' ? ' (nothing was fired)' : ''}`;
    case 'MEETING_ID_UNKNOWN':
      return "this lead's meeting exists but its id was never received (the booking's answer was lost): ask the person for the meeting id (from the scheduling app or the calendar invite), then call reschedule_meeting with meeting_id and start";
    case 'NOT_FOUND':
      if (h.tool === 'reschedule_meeting' && /noted in the local record/.test(h.message))
        return "the API does not know this meeting now (deleted, another account's key, or a passing fault): schedctl's record notes it and the lead is not freed; ask the person to check the scheduling app, and only if the meeting is really gone call route_lead with rebook: true";
      if (h.tool === 'reschedule_meeting')
        return 'no such meeting in this workspace: check meeting_id (list_meetings lists the meetings booked through schedctl)';
      if (h.tool === 'fire_trigger' || h.tool === 'route_lead')
        return 'no such trigger in this workspace: list_triggers lists them (pass the id or the exact name)';
      return `no such event or scheduling link${event ? ` ${shown(event)}` : ''}: list_events lists the events${res ? '; check reservation_id too' : ''}`;
    case 'CONFLICT':
      if (h.tool === 'reschedule_meeting')
        return "this meeting's host did not take that time (a move keeps the meeting's host; an event's free times are all its hosts', so find_slots may list times this host cannot take): pass a day or a part of one as start ('first friday', 'tuesday afternoon') to try its free times until the host accepts one (tries: how many, at most 20), or one of the times above; never one listed as refused";
      if (h.tool === 'route_lead')
        return "the workflow run's scheduling session ended: only if the person agrees to a new workflow run (it repeats the workflow's CRM writes), call route_lead again with the same arguments plus refire_on_conflict: true";
      return 'the scheduling session of the workflow run ended: only if the person agrees to a new run (it repeats CRM writes), call fire_trigger again with force: true, then find_slots with the new schedulingLinkId and book_meeting with the new execution_id';
    case 'INVALID_REQUEST':
      if (h.tool === 'fire_trigger' || h.tool === 'route_lead')
        return 'check fields against the trigger in list_triggers, then call again (nothing was fired)';
      if (h.tool === 'book_meeting' && str(h.args.execution_id) && /personEmail/.test(h.message + (h.cliHint ?? '')))
        return 'with execution_id, email must be the email the trigger was fired with';
      return 'fix the arguments named in the details, then call again';
    case 'INVALID_API_KEY':
    case 'NO_API_KEY':
      return "the server's key is missing, malformed or revoked: the person must add a current one in a terminal (schedctl profile add <name> --key-stdin) and restart this MCP server; no tool call can fix it";
    case 'MISSING_SCOPE':
      return "the server's key lacks the permission this tool needs: the person must give it a key with that permission (schedctl profile add in a terminal); no tool call can fix it";
    default:
      return undefined;
  }
}

/** The CLI's commands in a hint, as tools (flags are renamed by the caller, per tool). */
const COMMANDS: Array<[RegExp, string]> = [
  [/`?schedctl slots (\S+) --reservation (\S+?)`?(?=[\s:;,)]|$)/g, 'find_slots with event $1 and reservation_id $2'],
  [/`?schedctl slots (\S+?)`?(?=[\s:;,)]|$)/g, 'find_slots with event $1'],
  [/`?schedctl reschedule (\S+) --start <time>`?/g, 'reschedule_meeting with meeting_id $1 and start'],
  [/`?schedctl (?:events ls|events show \S+?)`?(?=[\s:;,)]|$)/g, 'list_events'],
  [/`?schedctl (?:triggers ls|triggers show \S+?)`?(?=[\s:;,)]|$)/g, 'list_triggers'],
  [/`?schedctl meetings ls`?/g, 'list_meetings'],
  [/`?schedctl trigger fire[^`;]*`?/g, 'fire_trigger'],
  [/`?schedctl book[^`;]*`?/g, 'book_meeting with the same arguments'],
  [/the same schedctl route command with/g, 'route_lead with the same arguments plus'],
];

export function translateCommands(hint: string): string {
  return COMMANDS.reduce((s, [re, to]) => s.replace(re, to), hint);
}

/** Flags that mean the same in every tool. */
export const COMMON_FLAGS: Record<string, string> = {
  'rebook: true': '--rebook',
  'force: true': '--force',
  'refire_on_conflict: true': '--yes',
  reservation_id: '--reservation',
  execution_id: '--execution',
  start: '--start',
  email: '--email',
};
