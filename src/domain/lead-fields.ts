/**
 * The optional lead fields of a book request (guestFirstName, guestLastName, guestPhone,
 * guestEmails, leadTimezone), from what `book`'s flags or the route wizard gathered: only
 * those given. An empty name or an empty guest list is "not given", never sent as a value.
 */
import type { BookRequest } from '../api/schemas.js';
import type { GuestDetails } from './route/types.js';

export type LeadFields = Pick<
  BookRequest,
  'guestFirstName' | 'guestLastName' | 'guestPhone' | 'guestEmails' | 'leadTimezone'
>;

export function leadFields(lead: Partial<GuestDetails> & { leadTimezone?: string | undefined }): LeadFields {
  const fields: LeadFields = {};
  if (lead.firstName) fields.guestFirstName = lead.firstName;
  if (lead.lastName) fields.guestLastName = lead.lastName;
  if (lead.phone) fields.guestPhone = lead.phone;
  if (lead.guests?.length) fields.guestEmails = lead.guests;
  if (lead.leadTimezone) fields.leadTimezone = lead.leadTimezone;
  return fields;
}
