/**
 * The `--json` documents schedctl prints, as zod schemas: the one source of their shapes. The
 * code that builds a document types it from here, the tests validate every `--json` output
 * they read against it (test/helpers/cli.ts), and `npm run schemas` writes each as a versioned
 * JSON Schema into schemas/ (it ships in the package), so a script's contract cannot drift
 * from what the CLI prints. API resources (Meeting, Trigger, …) are the tolerant schemas of
 * src/api/schemas.ts: a field a server adds passes through, as `--json` promises.
 *
 * Only read by the output side and the tests: nothing here is built on a command's start path.
 */
import { schemas as api } from '../api/schemas.js';
import * as z from '../api/zod.js';

const str = () => z.string();
const nul = <T extends z.ZodMiniType>(t: T) => z.nullable(t);
const int = () => z.int();
const bool = () => z.boolean();

/** `{"error": {...}}`: every failure with `--json` (docs/json-output.md). */
export const errorDocument = () =>
  z.looseObject({
    error: z.looseObject({
      code: str(),
      message: str(),
      details: z.optional(
        z.array(
          z.union([
            str(),
            // Several meetings where one is needed: a record each, `line` the text a person sees.
            z.looseObject({ id: nul(str()), date: nul(str()), title: nul(str()), event: nul(str()), line: str() }),
          ]),
        ),
      ),
      status: z.optional(int()),
      hint: z.optional(str()),
      /** USAGE: the nearest known command or option. */
      suggestion: z.optional(str()),
    }),
    /** book's SLOT_TAKEN: the nearest free times, bookable under this reservation. */
    nearestSlots: z.optional(z.array(str())),
    reservationId: z.optional(str()),
  });

/** What is known of a booking: the one document kind of `book`, `route`, their MCP tools and their bulk rows. */
const bookingCore = {
  /** booked, already_booked; route adds redirect, none and other (nothing was booked). */
  status: z.enum(['booked', 'already_booked', 'redirect', 'none', 'other']),
  /** The API's Meeting: booked, or the lead's meeting on record; null when it is not known. */
  meeting: nul(api.meeting),
  /** The meeting's id: meeting.id, or an id known without its Meeting; null when never received. */
  meetingId: nul(str()),
  /** The booked start time (ISO 8601); null when nothing was booked. */
  startTime: nul(str()),
  /** The lead. */
  email: str(),
  /** The event or scheduling link booked; null when nothing was booked. */
  event: nul(str()),
  reservationId: nul(str()),
  /** The workflow run the booking links to; null without one. */
  executionId: nul(str()),
  /** already_booked: the API's answer to the retry, or ON_RECORD (schedctl's: answered from the local record); else null. */
  alreadyBookedCode: nul(str()),
};

/** `book --json` (and MCP book_meeting). */
export const bookingResult = () => z.object(bookingCore);

const knownOutcome = () =>
  z.union([
    z.looseObject({ type: z.literal('scheduler'), schedulerUrl: str(), schedulingLinkId: str() }),
    z.looseObject({ type: z.literal('redirect'), url: str() }),
    z.looseObject({ type: z.literal('none') }),
    // An outcome type this schedctl does not know: passed through.
    z.looseObject({ type: str() }),
  ]);

/** `route --json` (and MCP route_lead): a booking result, with what the route did before the booking. */
export const routeResult = () =>
  z.object({
    ...bookingCore,
    /** The workflow's outcome; null when this run neither fired nor reused one (answered from the record). */
    outcome: nul(knownOutcome()),
    /** API operations sent. */
    requests: int(),
    trigger: z.object({ id: str(), name: str() }),
    /** The scheduler outcome's link (= event when booked); null without one. */
    schedulingLinkId: nul(str()),
    /** A remembered outcome was used (or the record answered): no new workflow run. */
    reused: bool(),
    refires: int(),
    /** Earlier fires of this lead and trigger that got no answer ([] when none). */
    unansweredFires: z.array(z.object({ sentAt: nul(str()) })),
  });

/** `reschedule --json` (and MCP reschedule_meeting): a move's result. */
export const moveResult = () =>
  z.object({
    /**
     * moved: the meeting is at its new time (a refused move is an error document); unchanged: the
     * record has it at that time already, and nothing was sent (`tried` is empty).
     */
    status: z.enum(['moved', 'unchanged']),
    /** The API's Meeting, moved. */
    meeting: api.meeting,
    /** The start schedctl last recorded for it (null when this machine never booked or moved it). */
    from: nul(str()),
    /** Every PATCH sent, in order: CONFLICT (the host refused it, nothing changed) or moved (the last). */
    tried: z.array(z.object({ startTime: str(), answer: z.enum(['CONFLICT', 'moved']) })),
  });

export const ROW_STATUSES = [
  'booked',
  'already_booked',
  'moved',
  'skipped',
  'redirect',
  'none',
  'failed',
  'invalid',
] as const;

/** A line of a bulk `--file --json` run: a row's result, its summary, or (dry run) the plan. */
export const bulkLine = () =>
  z.union([
    z.object({
      /** The row's line in the file. */
      row: int(),
      /** The lead's email or the meeting id ('' on a line that could not be read). */
      key: str(),
      status: z.enum(ROW_STATUSES),
      /** The meeting booked, moved or skipped (known from an earlier run); null when none is known. */
      meetingId: nul(str()),
      /** The API's Meeting when this run booked or moved it; else null. */
      meeting: nul(api.meeting),
      /** failed: the error code; already_booked: as in a booking result; skipped: the earlier run's status. */
      code: nul(str()),
      message: nul(str()),
    }),
    z.object({ summary: z.object({ rows: int(), byStatus: z.record(str(), int()), failedRows: z.array(int()) }) }),
    z.looseObject({ plan: z.unknown(), ratePerMinute: z.number(), invalid: z.unknown() }),
    // The run's last line when it failed (ROWS_FAILED, or a failure that stopped it).
    errorDocument(),
  ]);

const keyRef = () => z.looseObject({ fingerprint: str(), names: z.array(str()), addedAt: z.optional(nul(str())) });

export const triggersList = () => api.triggersList;
export const trigger = () => api.trigger;
export const eventsList = () => z.looseObject({ events: z.array(api.eventSummary), nextCursor: str() });
export const eventDetail = () => api.eventDetail;
export const slotsResult = () => api.slotsResult;
export const fireResult = () =>
  z.looseObject({
    status: z.optional(z.literal('reused')),
    executionId: str(),
    outcome: knownOutcome(),
    firedAt: z.optional(str()),
    unansweredFires: z.optional(z.array(z.looseObject({ sentAt: z.optional(nul(str())) }))),
  });
const meetingRecord = () =>
  z.looseObject({
    id: nul(str()),
    date: str(),
    personEmail: str(),
    source: str(),
    recordedAt: z.optional(str()),
    event: z.optional(str()),
    history: z.optional(z.array(z.looseObject({ from: str(), to: str(), at: str() }))),
  });
export const meetingsList = () => z.array(meetingRecord());
export const meetingShow = () => meetingRecord();
/** The kinds of a lead's timeline entry (`meetings history`, run/meetings/timeline.ts); each kind's fields in docs/json-output.md. */
export const TIMELINE_KINDS = [
  'fire',
  'fire_answer',
  'outcome',
  'booking',
  'booking_settled',
  'booking_acknowledged',
  'meeting',
  'move',
  'move_refused',
  'move_unanswered',
  'not_found',
] as const;
export const meetingsHistory = () =>
  z.looseObject({
    email: str(),
    workspace: str(),
    entries: z.array(z.looseObject({ at: str(), kind: z.enum(TIMELINE_KINDS), by: z.optional(str()) })),
  });
export const smokeResult = () =>
  z.looseObject({
    ok: bool(),
    requests: int(),
    tries: int(),
    checks: z.array(z.looseObject({ name: str(), status: z.enum(['pass', 'fail', 'skip']) })),
  });
const profileView = () => z.looseObject({ name: str(), baseUrl: str(), key: str(), isDefault: bool() });
export const profileAdd = () =>
  z.looseObject({ profile: profileView(), keyCheck: z.enum(['passed', 'missing_scope', 'skipped']) });
export const profileShow = () => z.looseObject({ profile: profileView() });
export const profileList = () => z.looseObject({ profiles: z.array(profileView()) });
export const profileUse = () => z.looseObject({ defaultProfile: str() });
export const profileRemove = () => z.looseObject({ removed: str() });
export const stateStatus = () =>
  z.looseObject({
    backend: z.enum(['local', 'postgres']),
    location: str(),
    counts: z.record(str(), int()),
    locks: z.array(z.looseObject({ subject: str(), of: str() })),
    workspace: nul(z.looseObject({ id: str(), recorded: bool(), keys: z.array(keyRef()) })),
  });
export const statePush = () => z.looseObject({ from: str(), to: str(), moved: z.record(str(), int()) });
export const statePull = () => z.looseObject({ from: str(), to: str(), pulled: z.record(str(), int()) });
export const stateUnlock = () => z.looseObject({ released: z.looseObject({ subject: str(), of: str() }) });
export const stateAccept = () =>
  z.looseObject({
    ledger: str(),
    ledgerId: nul(str()),
    serial: int(),
    was: nul(z.looseObject({ ledgerId: str(), serial: nul(int()) })),
    mark: str(),
  });
export const stateReset = () => z.looseObject({ ledger: str(), ledgerId: str(), setAside: z.array(str()) });
export const sandboxBanner = () =>
  z.looseObject({ baseUrl: str(), keys: z.looseObject({ full: str(), readOnly: str(), revoked: str() }) });
export const completionScript = () => z.looseObject({ shell: str(), script: str() });
export const helpTopic = () =>
  z.looseObject({ topic: str(), rows: z.array(z.looseObject({ term: str(), text: str() })) });
export const versionInfo = () => z.looseObject({ version: str() });

export type MeetingsHistoryDocument = z.infer<ReturnType<typeof meetingsHistory>>;
export type BookingResultDocument = z.infer<ReturnType<typeof bookingResult>>;
export type RouteResultDocument = z.infer<ReturnType<typeof routeResult>>;
export type MoveResultDocument = z.infer<ReturnType<typeof moveResult>>;
export type BulkRowDocument = Extract<z.infer<ReturnType<typeof bulkLine>>, { row: number }>;
