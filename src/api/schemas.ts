/**
 * Zod schemas for every resource in the API spec: the single source of API types.
 *
 * Two variants are built from one definition:
 * - tolerant (the default, used by commands): unknown properties pass through and
 *   enum/format checks are relaxed, so a server that adds a field or an enum value
 *   does not break a working CLI;
 * - strict (used by `schedctl smoke` and the sandbox's own tests): exactly what the
 *   spec allows, no extra properties, real uuid/date-time/email formats and enums.
 */
import * as z from './zod.js';

export const ERROR_CODES = [
  'INVALID_REQUEST',
  'RESERVATION_MISMATCH',
  'WORK_EMAIL_REQUIRED',
  'INVALID_API_KEY',
  'MISSING_SCOPE',
  'NOT_FOUND',
  'RESERVATION_EXPIRED',
  'RESERVATION_USED',
  'SLOT_TAKEN',
  'NO_HOST_AVAILABLE',
  'CONFLICT',
  'RATE_LIMITED',
  'INTERNAL_ERROR',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export const MEETING_STATUSES = ['scheduled', 'rescheduled', 'held', 'no_show', 'canceled'] as const;
export const MEETING_CONFERENCING_TYPES = [
  'google_meet',
  'microsoft_teams',
  'zoom',
  'zoom_personal',
  'in_person',
  'phone',
  'other',
] as const;
export const EVENT_CONFERENCING_TYPES = ['calendar_default', 'zoom', 'zoom_personal', 'in_person'] as const;
export const SCOPES = ['scheduling:read', 'scheduling:write', 'triggers:read', 'triggers:write'] as const;
export type Scope = (typeof SCOPES)[number];

const INT32 = { min: -2147483648, max: 2147483647 };

/** Memoized thunk: building zod schemas is a measurable part of a command's cold start. */
function once<T>(build: () => T): () => T {
  let value: T | undefined;
  return () => (value ??= build());
}

function buildSchemas(strict: boolean) {
  // z.looseObject keeps unknown keys (so --json passes through what the server sent);
  // z.strictObject rejects them.
  const obj = <T extends z.core.$ZodLooseShape>(shape: T) => (strict ? z.strictObject(shape) : z.looseObject(shape));
  const oneOf = <const T extends readonly [string, ...string[]]>(values: T) =>
    strict ? z.enum(values) : z.union([z.enum(values), z.string()]);
  const uuid = () => (strict ? z.uuid() : z.string());
  const dateTime = () => (strict ? z.iso.datetime({ offset: true }) : z.string());
  const email = () => (strict ? z.email() : z.string());
  const int32 = () => z.int().check(z.gte(INT32.min), z.lte(INT32.max));

  const meeting = once(() =>
    obj({
      id: uuid(),
      eventId: uuid(),
      title: z.string(),
      status: oneOf(MEETING_STATUSES),
      date: dateTime(),
      duration: int32(),
      meetingLink: z.nullable(z.string()),
      conferencingType: oneOf(MEETING_CONFERENCING_TYPES),
      location: z.nullable(z.string()),
      personEmail: email(),
      additionalAttendees: z.array(z.string()),
      cancellationReason: z.nullable(z.string()),
      createdAt: dateTime(),
      updatedAt: dateTime(),
    }),
  );

  const eventCommon = () => ({
    id: uuid(),
    slug: z.string(),
    name: z.string(),
    schedulerTitle: z.string(),
    schedulerDescription: z.string(),
    duration: int32(),
    timeslotIncrement: int32(),
    conferencingType: oneOf(EVENT_CONFERENCING_TYPES),
    location: z.string(),
  });

  const eventSummary = once(() => obj({ ...eventCommon(), createdAt: dateTime(), updatedAt: dateTime() }));
  // The spec types nextCursor as a string; the tolerant variant also accepts null or
  // absence as "no more pages", since real services differ on how they say it.
  const eventsList = once(() =>
    obj({
      events: z.array(eventSummary()),
      nextCursor: strict ? z.string() : z.optional(z.nullable(z.string())),
    }),
  );

  const host = once(() =>
    obj({
      name: z.string(),
      profilePictureUrl: z.string(),
      isQueue: z.boolean(),
      isPrimary: z.boolean(),
    }),
  );

  const option = once(() => obj({ value: z.string(), label: z.string() }));

  const question = once(() =>
    obj({
      id: uuid(),
      type: z.string(),
      title: z.string(),
      description: z.string(),
      placeholder: z.string(),
      isRequired: z.boolean(),
      order: z.int(),
      options: z.array(option()),
      requireWorkEmail: z.boolean(),
    }),
  );

  const eventDetail = once(() => obj({ ...eventCommon(), hosts: z.array(host()), questions: z.array(question()) }));

  const slotsResult = once(() =>
    obj({
      reservationId: uuid(),
      eventId: uuid(),
      expiresAt: dateTime(),
      slots: z.array(dateTime()),
      // The shape of a non-null activeHost is not shown in the spec: any object.
      activeHost: z.nullable(z.record(z.string(), z.unknown())),
    }),
  );

  const triggerField = once(() =>
    obj({
      name: z.string(),
      label: z.string(),
      type: z.string(),
      required: z.boolean(),
      options: z.nullable(z.array(option())),
    }),
  );

  const trigger = once(() =>
    obj({
      id: uuid(),
      name: z.string(),
      description: z.string(),
      fields: z.array(triggerField()),
    }),
  );

  const triggersList = once(() => obj({ triggers: z.array(trigger()) }));

  const schedulerOutcome = once(() =>
    obj({ type: z.literal('scheduler'), schedulerUrl: z.string(), schedulingLinkId: uuid() }),
  );
  const redirectOutcome = once(() => obj({ type: z.literal('redirect'), url: z.string() }));
  const noneOutcome = once(() => obj({ type: z.literal('none') }));
  const outcome = once(() =>
    strict
      ? z.discriminatedUnion('type', [schedulerOutcome(), redirectOutcome(), noneOutcome()])
      : z.union([
          schedulerOutcome(),
          redirectOutcome(),
          noneOutcome(),
          // An outcome type this client does not know yet must not break `trigger fire`. The data passes
          // through unchanged; only its static type says 'other', so narrowing on the known types works.
          z.pipe(
            z.looseObject({ type: z.string() }),
            z.transform((o) => o as { type: 'other'; [key: string]: unknown }),
          ),
        ]),
  );

  const triggerFireResult = once(() => obj({ executionId: uuid(), outcome: outcome() }));

  const apiError = once(() =>
    obj({
      error: obj({
        code: oneOf(ERROR_CODES),
        message: z.string(),
        details: z.optional(z.array(z.string())),
      }),
    }),
  );

  // Each schema is built on first use: a command pays only for the ones it parses.
  return {
    get meeting() {
      return meeting();
    },
    get eventSummary() {
      return eventSummary();
    },
    get eventsList() {
      return eventsList();
    },
    get host() {
      return host();
    },
    get question() {
      return question();
    },
    get eventDetail() {
      return eventDetail();
    },
    get slotsResult() {
      return slotsResult();
    },
    get triggerField() {
      return triggerField();
    },
    get trigger() {
      return trigger();
    },
    get triggersList() {
      return triggersList();
    },
    get outcome() {
      return outcome();
    },
    get triggerFireResult() {
      return triggerFireResult();
    },
    get apiError() {
      return apiError();
    },
  };
}

export const schemas = buildSchemas(false);
export type SchemaSet = typeof schemas;

let strictBuilt: SchemaSet | undefined;
/**
 * Built on first use: only `smoke` and the sandbox's tests need it, and building a schema
 * set is a measurable part of a command's cold start.
 */
export const strictSchemas: SchemaSet = new Proxy({} as SchemaSet, {
  get: (_target, key) => {
    strictBuilt ??= buildSchemas(true);
    return strictBuilt[key as keyof SchemaSet];
  },
});

export type Meeting = z.infer<typeof schemas.meeting>;
export type EventSummary = z.infer<typeof schemas.eventSummary>;
export type EventsList = z.infer<typeof schemas.eventsList>;
export type Host = z.infer<typeof schemas.host>;
export type Question = z.infer<typeof schemas.question>;
export type EventDetail = z.infer<typeof schemas.eventDetail>;
export type SlotsResult = z.infer<typeof schemas.slotsResult>;
export type TriggerField = z.infer<typeof schemas.triggerField>;
export type Trigger = z.infer<typeof schemas.trigger>;
export type TriggersList = z.infer<typeof schemas.triggersList>;
export type TriggerFireResult = z.infer<typeof schemas.triggerFireResult>;
/** The three outcome types the spec defines (the tolerant parse may also yield `other`). */
export type Outcome = Exclude<TriggerFireResult['outcome'], { type: 'other' }>;
// Request body types live with their schemas (only the sandbox builds those); type-only, so
// importing them from here loads nothing.
export type { FireRequest, SlotsRequest, BookRequest } from './request-schemas.js';
