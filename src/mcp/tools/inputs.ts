/**
 * Inputs that several tools take, described once: a model reads the same words everywhere. Every
 * input is bounded (maxLength, maxItems, maxProperties in the schema, refused before any request):
 * an e-mail address as RFC 5321 allows it, ids and times as long as the API's ever are, form
 * answers as many and as long as a trigger form holds. A refusal never echoes the value.
 */
import * as z from 'zod/v4';
import { controlCharacterIn, CONTROL_REFUSAL } from '../../api/request-text.js';
import { MAX_GUESTS } from '../../limits.js';

export const BOUNDS = {
  /** RFC 5321: a forward-path holds at most 256 octets, the address 254. */
  email: 254,
  /** uuids, slugs, reservation and execution ids, trigger names. */
  id: 200,
  /** ISO 8601 with an offset, or a phrase such as "next tuesday afternoon". */
  time: 100,
  /** IANA zone names (the longest is 32). */
  zone: 64,
  name: 200,
  phone: 40,
  cursor: 1000,
  /** A trigger form's field name, one answer, and how many fields it has. */
  fieldName: 100,
  fieldValue: 2000,
  fields: 100,
} as const;

export const bounded = (max: number) => z.string().max(max);

/**
 * Free text the API receives (a name, a phone, an answer and its key): the one rule of
 * api/request-text.ts, checked with the schema, so the refusal names the argument and nothing is sent.
 */
export const plainText = (max: number) => z.string().max(max).check(refusePlain);

function refusePlain(ctx: z.core.ParsePayload<unknown>): void {
  const char = typeof ctx.value === 'string' ? controlCharacterIn(ctx.value) : undefined;
  if (char)
    ctx.issues.push({
      code: 'custom',
      input: ctx.value,
      message: `holds the control character ${char}; ${CONTROL_REFUSAL}`,
    });
}

/** A required id, slug or name: blank is refused by the schema, before any request. */
export const nonEmpty = (description: string) => z.string().max(BOUNDS.id).trim().min(1).describe(description);

export const idInput = (description: string) => z.string().max(BOUNDS.id).describe(description);
export const timeInput = (description: string) => z.string().max(BOUNDS.time).describe(description);
export const emailInput = (description: string) => z.string().max(BOUNDS.email).describe(description);

export const TRIGGER_INPUT = nonEmpty('trigger id or exact name (see list_triggers)');

/** What a booking may say about the lead beside the email: book_meeting and route_lead take the same. */
export const LEAD_DETAILS = {
  first_name: plainText(BOUNDS.name).optional(),
  last_name: plainText(BOUNDS.name).optional(),
  phone: plainText(BOUNDS.phone).optional(),
  guests: z
    .array(z.string().max(BOUNDS.email))
    .max(MAX_GUESTS)
    .optional()
    .describe(`additional attendee emails (at most ${MAX_GUESTS})`),
  lead_tz: bounded(BOUNDS.zone).optional().describe("the lead's IANA time zone (sent as leadTimezone)"),
};

export const TZ = z
  .string()
  .max(BOUNDS.zone)
  .optional()
  .describe('IANA time zone (e.g. Europe/Berlin) of local times given and of times shown; default: the system zone');

/** A map of answers by name: at most BOUNDS.fields of them (JSON Schema's maxProperties, checked here too). */
export const answers = <V extends z.ZodType>(value: V) =>
  z
    .record(z.string().max(BOUNDS.fieldName), value)
    .refine((o) => Object.keys(o).length <= BOUNDS.fields, {
      message: `too many: at most ${BOUNDS.fields} answers (nothing was sent)`,
    })
    .meta({ maxProperties: BOUNDS.fields });

/** Form answers as strings: a model may send a number or a boolean for a text field. */
export const fieldsInput = answers(z.union([z.string().max(BOUNDS.fieldValue), z.number(), z.boolean()]))
  .optional()
  .describe(
    'form answers by field name (see list_triggers); select fields take an option value or its exact label; leave out the email field',
  );

export const stringFields = (fields: Record<string, string | number | boolean> | undefined): Record<string, string> =>
  Object.fromEntries(Object.entries(fields ?? {}).map(([k, v]) => [k, String(v)]));
