/**
 * One row of `schedctl route --file leads.csv`, checked before anything is sent, so a typo
 * costs no workflow run (every fire repeats the workflow's CRM writes and counts for routing
 * fairness). Columns:
 * - `email` (required): the lead; it also fills the form's email field.
 * - `trigger`: id or name; when empty, the run's default trigger (`--trigger`). A filled cell wins.
 * - one column per form field, by field name; select cells take an option value (or label).
 *   Checked by domain/triggers.ts's checkResponses, the same rules as `--field`.
 * - `slot`: `first` (default when empty), or a future time in one of parseTimeInput's forms.
 * - `first_name`, `last_name`, `phone`: sent with the booking.
 * - `guests`: extra attendees' emails separated by `;`, at most 10.
 * - `tz`: the lead's IANA zone: a local `slot` is read in it (else in the run's zone), and it is
 *   sent as the booking's leadTimezone.
 * A booking column that is also a field of the trigger (say `phone`) fills both. A column that
 * is a field of another trigger in the workspace is ignored while its cell is empty (files that
 * mix triggers); any other column is an error naming it.
 */
import { controlCharacterIn, CONTROL_REFUSAL } from '../api/request-text.js';
import type { Trigger } from '../api/schemas.js';
import { isValidEmail } from '../domain/inputs.js';
import { setOwn } from '../domain/own-keys.js';
import { checkResponses, type FireInputNames, problemLine, resolveTrigger } from '../domain/triggers.js';
import { CliError } from '../errors.js';
import { MAX_GUESTS } from '../limits.js';
import { cell, type RowValidation, timeCell, unknownColumn, zoneCell } from './cells.js';

export const ROUTE_COLUMNS = ['email', 'trigger', 'slot', 'first_name', 'last_name', 'phone', 'guests', 'tz'] as const;

export interface RouteRow {
  email: string;
  trigger: Trigger;
  /** The fire's `responses`: select values (labels mapped to values), the email field left out. */
  responses: Record<string, string>;
  slot: 'first' | Date;
  firstName?: string;
  lastName?: string;
  phone?: string;
  guests: string[];
  /** From the `tz` column: the leadTimezone to send. */
  tz?: string;
}

export interface RouteRowContext {
  triggers: Trigger[];
  /** `--trigger`: used for rows whose `trigger` cell is empty. */
  defaultTrigger?: string | undefined;
  /** The zone local `slot` times are read in when the row has no `tz`. */
  zone: string;
  now: Date;
}

export function validateRouteRow(record: Record<string, string>, ctx: RouteRowContext): RowValidation<RouteRow> {
  const errors: string[] = [];

  const email = cell(record, 'email');
  if (email === '') errors.push("email: required (the lead's email address)");
  else if (!isValidEmail(email)) errors.push(`email: "${email}" is not a valid email address`);

  const trigger = triggerOf(record, ctx, errors);
  const fields = formColumns(record, trigger, ctx.triggers, errors);
  let responses: Record<string, string> = {};
  if (trigger) responses = rowResponses(trigger, email, fields, record, errors);

  const tz = zoneCell(record, 'tz', errors);
  const slotText = cell(record, 'slot');
  let slot: RouteRow['slot'] | undefined = 'first';
  if (slotText !== '' && slotText.toLowerCase() !== 'first')
    slot = timeCell(slotText, 'slot', { zone: tz ?? ctx.zone, now: ctx.now }, errors);

  const guests = guestsOf(cell(record, 'guests'), errors);
  // Sent with the booking: the one rule for free text sent to the API (api/request-text.ts).
  for (const column of ['first_name', 'last_name', 'phone']) {
    const char = controlCharacterIn(cell(record, column));
    if (char) errors.push(`${column}: holds the control character ${char}; ${CONTROL_REFUSAL}`);
  }

  if (errors.length > 0 || !trigger || !slot) return { ok: false, errors };
  const row: RouteRow = { email, trigger, responses, slot, guests };
  const firstName = cell(record, 'first_name');
  const lastName = cell(record, 'last_name');
  const phone = cell(record, 'phone');
  if (firstName) row.firstName = firstName;
  if (lastName) row.lastName = lastName;
  if (phone) row.phone = phone;
  if (tz) row.tz = tz;
  return { ok: true, row };
}

/**
 * Columns no trigger of the workspace can use, one error each: for a check of the header
 * before the first row (per-row validation reports them too).
 */
export function unknownRouteColumns(columns: Iterable<string>, triggers: Trigger[]): string[] {
  const known = knownColumns(triggers);
  return [...columns].filter((c) => !known.has(c)).map((c) => unknownColumn(c, [...known]));
}

function knownColumns(triggers: Trigger[]): Set<string> {
  return new Set<string>([...ROUTE_COLUMNS, ...triggers.flatMap((t) => t.fields.map((f) => f.name))]);
}

function triggerOf(record: Record<string, string>, ctx: RouteRowContext, errors: string[]): Trigger | undefined {
  const given = cell(record, 'trigger') || ctx.defaultTrigger?.trim() || '';
  if (given === '') {
    errors.push('trigger: required (a trigger id or name in this column, or one for every row with --trigger)');
    return undefined;
  }
  try {
    return resolveTrigger(ctx.triggers, given);
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    errors.push(`trigger: ${error.message}${error.code === 'USAGE' ? '; use the trigger id' : ''}`);
    return undefined;
  }
}

/** The cells meant for the trigger's form; unknown columns are reported here. */
function formColumns(
  record: Record<string, string>,
  trigger: Trigger | undefined,
  triggers: Trigger[],
  errors: string[],
): Record<string, string> {
  // The `email` column is the lead's email, which fills the form's email field; another email
  // field (say `work_email`) is a form column, checked against it by checkResponses.
  const own = new Set((trigger?.fields ?? []).map((f) => f.name).filter((name) => name !== 'email'));
  const anyTrigger = knownColumns(triggers);
  const fields: Record<string, string> = {};
  for (const [column, value] of Object.entries(record)) {
    if (own.has(column)) setOwn(fields, column, value.trim());
    else if ((ROUTE_COLUMNS as readonly string[]).includes(column)) continue;
    else if (!anyTrigger.has(column)) errors.push(unknownColumn(column, [...anyTrigger]));
    else if (trigger && value.trim() !== '')
      errors.push(`${column}: not a field of trigger "${trigger.name}"; leave the cell empty for this row`);
  }
  return fields;
}

/** The form's problems in a row's words: its columns. */
function rowResponses(
  trigger: Trigger,
  email: string,
  fields: Record<string, string>,
  record: Record<string, string>,
  errors: string[],
): Record<string, string> {
  const { responses, problems } = checkResponses(trigger, { email, fields });
  const columns: FireInputNames = {
    email: 'the email column',
    required: (f) => `the column "${f.name}" is ${f.name in record ? 'empty' : 'missing'}`,
  };
  // The lead's email is checked above, by its own column.
  for (const p of problems) if (p.kind !== 'lead_email') errors.push(problemLine(p, columns));
  return problems.length > 0 ? {} : responses;
}

function guestsOf(text: string, errors: string[]): string[] {
  if (text === '') return [];
  const guests = text
    .split(';')
    .map((g) => g.trim())
    .filter((g) => g !== '');
  const bad = guests.filter((g) => !isValidEmail(g));
  if (bad.length > 0) {
    const comma = bad.some((g) => g.includes(',')) ? ' (separate guests with ;)' : '';
    errors.push(`guests: not a valid email address: ${bad.map((g) => `"${g}"`).join(', ')}${comma}`);
  }
  if (guests.length > MAX_GUESTS) errors.push(`guests: ${guests.length} guests; at most ${MAX_GUESTS}`);
  return guests;
}
