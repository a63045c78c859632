/**
 * Request bodies, as the spec describes them. The sandbox validates with these and turns
 * issues into `details` items of the form `<field>: <reason>`. Kept apart from the response
 * schemas: the CLI sends these bodies but never needs to build their schemas.
 */
import * as z from './zod.js';

const isoDateTime = z.iso.datetime({ offset: true });
const stringMap = z.record(z.string(), z.string());

export const fireRequestSchema = z.object({
  email: z.email(),
  responses: z.optional(z.record(z.string(), z.unknown())),
  context: z.optional(
    z.object({
      utmParams: z.optional(z.unknown()),
      gclid: z.optional(z.unknown()),
      pageUrl: z.optional(z.unknown()),
      referrer: z.optional(z.unknown()),
      userAgent: z.optional(z.unknown()),
      ipAddress: z.optional(z.unknown()),
    }),
  ),
});
export type FireRequest = z.infer<typeof fireRequestSchema>;

export const slotsRequestSchema = z.object({
  start: isoDateTime,
  end: isoDateTime,
  reservationId: z.optional(z.uuid()),
});
export type SlotsRequest = z.infer<typeof slotsRequestSchema>;

export const bookRequestSchema = z.object({
  startTime: isoDateTime,
  reservationId: z.uuid(),
  event: z.string().check(z.minLength(1)),
  personEmail: z.email(),
  guestFirstName: z.optional(z.string()),
  guestLastName: z.optional(z.string()),
  guestPhone: z.optional(z.string()),
  guestEmails: z.optional(z.array(z.email()).check(z.maxLength(10))),
  leadTimezone: z.optional(z.string()),
  responses: z.optional(stringMap),
  fieldResponses: z.optional(stringMap),
  workflowExecutionId: z.optional(z.uuid()),
});
export type BookRequest = z.infer<typeof bookRequestSchema>;

export const rescheduleRequestSchema = z.object({ startTime: isoDateTime });

/** `<field>: <reason>` items, the spec's format for INVALID_REQUEST details. */
export function issueDetails(error: z.core.$ZodError): string[] {
  return error.issues.map((issue) => `${issue.path.length ? issue.path.join('.') : '(body)'}: ${issue.message}`);
}
