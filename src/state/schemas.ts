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

const profileShape = () => ({ baseUrl: z.string(), apiKey: z.string(), rate: z.optional(z.number()) });
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
  (p.rate === undefined || typeof p.rate === 'number');
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
  /** `${profile ?? 'env'}@${baseUrl}`: attempts against one workspace never match another's. */
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
const moveShape = () => ({ from: z.optional(z.string()), to: z.string(), at: z.string() });
const recordShape = () => ({
  scope: z.string(),
  source: z.enum(MEETING_SOURCES),
  recordedAt: z.string(),
  /** The event or scheduling link id the meeting was booked with (a link id is not the meeting's eventId). */
  event: z.string(),
  triggerId: z.optional(z.string()),
  answersKey: z.optional(z.string()),
  history: z.array(z.looseObject(moveShape())),
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
