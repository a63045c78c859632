/**
 * The shapes of the state files, checked on every read. Objects are loose: a field written by
 * a newer schedctl survives a rewrite by this one. The top-level key may be absent (`{}` reads
 * as empty), since that is unambiguous; any other shape is refused, never "repaired".
 * Schemas are built on first use (a measurable part of cold start otherwise).
 */
import * as z from '../api/zod.js';
import { schemas, type Meeting, type Outcome } from '../api/schemas.js';

/** The static type of a shape, without the index signature a loose object adds (so Omit/Partial work). */
export type Plain<S extends z.core.$ZodLooseShape> = z.infer<z.ZodMiniObject<S, z.core.$strip>>;

function once<T>(build: () => T): () => T {
  let value: T | undefined;
  return () => (value ??= build());
}

const profileShape = () => ({
  baseUrl: z.string(),
  apiKey: z.string(),
  rate: z.optional(z.number()),
  /** An explicit workspace name: profiles with other keys of one organisation share its ledger. */
  workspace: z.optional(z.string()),
  /** The team state's URL (postgres://…, never with a password): this profile's ledger is shared there. */
  state: z.optional(z.string()),
  /** The fingerprint of the key this profile's key replaced (never a key): the new key joins its workspace. */
  previousKey: z.optional(z.string()),
});
export type Profile = Plain<ReturnType<typeof profileShape>>;
/** `__internal__` is conf's (config-file.ts): the format version its migrations ran to, at `migrations.version`. */
export type ConfigFile = {
  defaultProfile?: string;
  profiles: Record<string, Profile>;
  __internal__?: Record<string, unknown>;
};
export const configSchema = once(() =>
  z.pipe(
    z.looseObject({
      defaultProfile: z.optional(z.string()),
      profiles: z.optional(z.record(z.string(), z.looseObject(profileShape()))),
      __internal__: z.optional(z.record(z.string(), z.unknown())),
    }),
    z.transform((c) => ({ ...c, profiles: c.profiles ?? {} }) as ConfigFile),
  ),
);

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isPlainProfile = (p: unknown): boolean =>
  isRecord(p) &&
  typeof p.baseUrl === 'string' &&
  typeof p.apiKey === 'string' &&
  (p.rate === undefined || typeof p.rate === 'number') &&
  (p.workspace === undefined || typeof p.workspace === 'string') &&
  (p.state === undefined || typeof p.state === 'string') &&
  (p.previousKey === undefined || typeof p.previousKey === 'string');
/**
 * config.json is read by every command: this accepts the well-formed file (a subset of what
 * configSchema accepts, unchanged by it) without building the schema; the schema judges and
 * explains everything else. test/unit/state-files.test.ts holds them to agree.
 */
export const isPlainConfig = (json: unknown): json is ConfigFile =>
  isRecord(json) &&
  (json.defaultProfile === undefined || typeof json.defaultProfile === 'string') &&
  isRecord(json.profiles) &&
  Object.values(json.profiles).every(isPlainProfile) &&
  (json.__internal__ === undefined || isRecord(json.__internal__));

export const JOURNAL_OUTCOMES = ['unknown', 'booked', 'already_booked'] as const;
const entryShape = () => ({
  id: z.string(),
  /** The workspace id (state/identity.ts); `${profile ?? 'env'}@${baseUrl}` in entries written before workspaces. */
  scope: z.string(),
  event: z.string(),
  reservationId: z.string(),
  workflowExecutionId: z.nullable(z.string()),
  personEmail: z.string(),
  startTime: z.string(),
  attemptedAt: z.string(),
  outcome: z.enum(JOURNAL_OUTCOMES),
  meetingId: z.optional(z.string()),
  updatedAt: z.optional(z.string()),
  /** null: recorded but not sent yet; absent: written by a schedctl before sentAt existed (it sent right after). */
  sentAt: z.optional(z.nullable(z.string())),
  triggerId: z.optional(z.string()),
  answersKey: z.optional(z.string()),
  /** The whole book request, so that a re-run can resolve a lost attempt by sending it again as it was. */
  request: z.optional(z.record(z.string(), z.unknown())),
  /** The event's id, once known (an alias, or the booked meeting's eventId). */
  eventId: z.optional(z.string()),
  /**
   * How an unknown outcome came about: `no_answer` (timeout, dropped connection, unreadable
   * 2xx, 3xx: rule 4 applies to a retry) or `error_answer` (an explicit 5xx: a retry's
   * RESERVATION_EXPIRED or CONFLICT proves nothing). Absent: written before this was kept (no_answer).
   */
  lostBy: z.optional(z.enum(['no_answer', 'error_answer'])),
  /** An unknown outcome the user booked past with rebook (warned that a meeting may exist): it blocks no more. */
  acknowledgedAt: z.optional(z.string()),
  /** The meeting it booked is gone from the server (a move was answered 404): it proves no meeting any more. */
  goneAt: z.optional(z.string()),
});
export type JournalEntry = Plain<ReturnType<typeof entryShape>>;
export type JournalFile = { entries: JournalEntry[] };
export const journalSchema = once(() =>
  z.pipe(
    z.looseObject({ entries: z.optional(z.array(z.looseObject(entryShape()))) }),
    z.transform((j) => ({ ...j, entries: j.entries ?? [] }) as JournalFile),
  ),
);

const rememberedShape = () => ({
  executionId: z.string(),
  outcome: schemas.outcome,
  firedAt: z.string(),
  email: z.string(),
  triggerId: z.string(),
  /** Absent in records written before answers were keyed: such a record never counts as a match. */
  answersKey: z.optional(z.string()),
  scope: z.optional(z.string()),
});
export type RememberedOutcome = Omit<Plain<ReturnType<typeof rememberedShape>>, 'outcome'> & { outcome: Outcome };
export type OutcomesFile = { outcomes: Record<string, RememberedOutcome> };
export const outcomesSchema = once(() =>
  z.pipe(
    z.looseObject({ outcomes: z.optional(z.record(z.string(), z.looseObject(rememberedShape()))) }),
    z.transform((o) => ({ ...o, outcomes: o.outcomes ?? {} }) as OutcomesFile),
  ),
);

export const MEETING_SOURCES = ['booked', 'rescheduled', 'recovered'] as const;
const moveShape = () => ({ from: z.optional(z.string()), to: z.string(), at: z.string(), by: z.optional(z.string()) });
const recordShape = () => ({
  scope: z.string(),
  source: z.enum(MEETING_SOURCES),
  recordedAt: z.string(),
  /** The event or scheduling link id the meeting was booked with (a link id is not the meeting's eventId). */
  event: z.string(),
  triggerId: z.optional(z.string()),
  answersKey: z.optional(z.string()),
  /** Who recorded it first, user@host: with a team state, which machine booked it. */
  bookedBy: z.optional(z.string()),
  history: z.array(z.looseObject(moveShape())),
  /**
   * When the API answered NOT_FOUND (404) for this meeting: the server no longer has it (cancelled
   * in the scheduling app, a restored backup). A gone meeting is not upcoming; absent: not learnt.
   */
  goneAt: z.optional(z.string()),
  /** The name of the trigger that routed it (what the route knew; its id is `triggerId`, its link `event`). */
  triggerName: z.optional(z.string()),
  /** A move sent whose answer is not known yet (domain/lead-rule.ts decideMove): sent again as it was by the next move. */
  pendingMove: z.optional(z.object({ to: z.string(), sentAt: z.string() })),
  /** Start times this meeting's host refused for a move (CONFLICT), with the server's time of the answer (domain/move-search.ts). */
  refused: z.optional(z.array(z.object({ startTime: z.string(), at: z.string() }))),
});
export type MeetingMove = Plain<ReturnType<typeof moveShape>>;
export type MeetingRecord = Meeting & Plain<ReturnType<typeof recordShape>>;
export type MeetingsFile = { meetings: Record<string, MeetingRecord> };
export const meetingsSchema = once(() =>
  z.pipe(
    z.looseObject({ meetings: z.optional(z.record(z.string(), z.extend(schemas.meeting, recordShape()))) }),
    z.transform((m) => ({ ...m, meetings: m.meetings ?? {} }) as MeetingsFile),
  ),
);

export const FIRE_STATES = ['prepared', 'sent', 'answered'] as const;
const fireShape = () => ({
  id: z.string(),
  scope: z.string(),
  triggerId: z.string(),
  personEmail: z.string(),
  answersKey: z.string(),
  preparedAt: z.string(),
  state: z.enum(FIRE_STATES),
  sentAt: z.optional(z.string()),
  answeredAt: z.optional(z.string()),
  executionId: z.optional(z.string()),
  outcomeType: z.optional(z.string()),
});
export type FireEntry = Plain<ReturnType<typeof fireShape>>;
export type FiresFile = { fires: FireEntry[] };
export const firesSchema = once(() =>
  z.pipe(
    z.looseObject({ fires: z.optional(z.array(z.looseObject(fireShape()))) }),
    z.transform((f) => ({ ...f, fires: f.fires ?? [] }) as FiresFile),
  ),
);

/** `{"<workspace> <alias>": eventId}`: slugs and scheduling link ids the slots results and meetings resolved. */
export type EventsFile = { aliases: Record<string, string> };
export const eventsSchema = once(() =>
  z.pipe(
    z.looseObject({ aliases: z.optional(z.record(z.string(), z.string())) }),
    z.transform((e) => ({ ...e, aliases: e.aliases ?? {} }) as EventsFile),
  ),
);
