/** Inputs that several tools take, described once: a model reads the same words everywhere. */
import * as z from 'zod/v4';
import { MAX_GUESTS } from '../../limits.js';

/** A required id, slug or name: blank is refused by the schema, before any request. */
export const nonEmpty = (description: string) => z.string().trim().min(1).describe(description);

export const TRIGGER_INPUT = nonEmpty('trigger id or exact name (see list_triggers)');

/** What a booking may say about the lead beside the email: book_meeting and route_lead take the same. */
export const LEAD_DETAILS = {
  first_name: z.string().optional(),
  last_name: z.string().optional(),
  phone: z.string().optional(),
  guests: z.array(z.string()).max(MAX_GUESTS).optional().describe(`additional attendee emails (at most ${MAX_GUESTS})`),
  lead_tz: z.string().optional().describe("the lead's IANA time zone (sent as leadTimezone)"),
};

export const TZ = z
  .string()
  .optional()
  .describe('IANA time zone (e.g. Europe/Berlin) of local times given and of times shown; default: the system zone');

/** Form answers as strings: a model may send a number or a boolean for a text field. */
export const fieldsInput = z
  .record(z.string(), z.union([z.string(), z.number(), z.boolean()]))
  .optional()
  .describe(
    'form answers by field name (see list_triggers); select fields take an option value or its exact label; leave out the email field',
  );

export const stringFields = (fields: Record<string, string | number | boolean> | undefined): Record<string, string> =>
  Object.fromEntries(Object.entries(fields ?? {}).map(([k, v]) => [k, String(v)]));
