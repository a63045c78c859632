/**
 * `book`'s flags as a typed booking request, every check before any request: shared by `book`,
 * its time grammar (book/start.ts) and the MCP tool book_meeting.
 */
import type { BookRequest } from '../../api/schemas.js';
import { leadFields } from '../../domain/lead-fields.js';
import {
  parseKeyValues,
  requireEmail,
  requirePlainAnswers,
  requirePlainText,
  requireUuid,
} from '../../domain/inputs.js';
import { parseTimeExpression } from '../../domain/human-time.js';
import { requireFuture, resolveZone } from '../../domain/time.js';
import { UsageError } from '../../errors.js';
import { MAX_GUESTS } from '../../limits.js';

export interface BookOptions {
  start?: string;
  reservation?: string;
  email?: string;
  execution?: string;
  firstName?: string;
  lastName?: string;
  phone?: string;
  guest?: string[];
  leadTz?: string;
  response?: string[];
  tz?: string;
  rebook?: boolean;
  /** Accepted as in `route`: book asks no confirmation of its own (a lead's second meeting needs --rebook). */
  yes?: boolean;
}

/** The flags as a typed booking request: every check before any request. */
export async function parseBookOptions(
  event: string,
  opts: BookOptions,
  now: Date,
): Promise<{ request: BookRequest; zone: string }> {
  if (!event.trim())
    throw new UsageError('missing <event-or-link>: pass the event or scheduling link you fetched slots for');
  requirePlainText(event, '<event-or-link>');
  const zone = resolveZone(opts.tz, '--tz');
  const need = (value: string | undefined, flag: string, what: string) => {
    if (value === undefined || value.trim() === '') throw new UsageError(`missing ${flag}: ${what}`);
    return value;
  };
  const startInput = need(
    opts.start,
    '--start',
    'pass one of the times `schedctl slots` lists, or a day ("first fri") to book its first free time',
  );
  const start = requireFuture(
    await parseTimeExpression(startInput, { zone, now, name: '--start', zoneInput: '--tz' }),
    now,
    '--start',
    zone,
  );
  const reservationId = requireUuid(
    need(opts.reservation, '--reservation', 'pass the reservationId `schedctl slots` printed'),
    '--reservation',
    'reservation',
  );
  const personEmail = requireEmail(need(opts.email, '--email', "pass the lead's email"), '--email');
  const workflowExecutionId =
    opts.execution !== undefined ? requireUuid(opts.execution, '--execution', 'workflow execution') : undefined;
  const guests = opts.guest ?? [];
  if (guests.length > MAX_GUESTS)
    throw new UsageError(`too many --guest values (${guests.length}): at most ${MAX_GUESTS} guests`);
  const guestEmails = guests.map((g) => requireEmail(g, '--guest'));
  const leadTimezone = opts.leadTz !== undefined ? resolveZone(opts.leadTz, '--lead-tz') : undefined;
  const responses = requirePlainAnswers(
    opts.response?.length ? parseKeyValues(opts.response, '--response') : undefined,
    '--response',
  );
  const request: BookRequest = {
    startTime: start.toISOString(),
    reservationId,
    event,
    personEmail,
    ...leadFields({
      firstName: requirePlainText(opts.firstName, '--first-name'),
      lastName: requirePlainText(opts.lastName, '--last-name'),
      phone: requirePlainText(opts.phone, '--phone'),
      guests: guestEmails,
      leadTimezone,
    }),
    ...(responses ? { responses } : {}),
    ...(workflowExecutionId !== undefined ? { workflowExecutionId } : {}),
  };
  return { request, zone };
}
