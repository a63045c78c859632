/**
 * One row of `schedctl reschedule --file moves.csv`. Columns:
 * - `meeting` (a meeting id) or `email` (the lead whose meeting moves): exactly one of them.
 *   The email is returned as given; finding its meeting is the caller's step.
 * - `start` (required): the new start, a future time in one of parseTimeInput's forms.
 * - `tz`: the zone a local `start` is read in (else the run's zone).
 */
import { isValidEmail, requireUuid } from '../domain/inputs.js';
import { cell, type RowValidation, timeCell, unknownColumn, zoneCell } from './cells.js';

export const RESCHEDULE_COLUMNS = ['meeting', 'email', 'start', 'tz'] as const;

export type RescheduleTarget = { meeting: string; email?: undefined } | { email: string; meeting?: undefined };
export type RescheduleRow = RescheduleTarget & {
  start: Date;
  /** From the `tz` column, when given. */
  tz?: string;
};

export interface RescheduleRowContext {
  /** The zone local `start` times are read in when the row has no `tz`. */
  zone: string;
  now: Date;
}

export function validateRescheduleRow(
  record: Record<string, string>,
  ctx: RescheduleRowContext,
): RowValidation<RescheduleRow> {
  const errors: string[] = [];
  for (const column of Object.keys(record)) {
    if (!(RESCHEDULE_COLUMNS as readonly string[]).includes(column))
      errors.push(unknownColumn(column, RESCHEDULE_COLUMNS));
  }

  const meeting = cell(record, 'meeting');
  const email = cell(record, 'email');
  let target: RescheduleTarget | undefined;
  if (meeting !== '' && email !== '') {
    errors.push('meeting: give either a meeting id or an email in a row, not both (the email column is filled too)');
  } else if (meeting !== '') {
    try {
      target = { meeting: requireUuid(meeting, 'meeting', 'meeting') };
    } catch {
      errors.push(`meeting: "${meeting}" is not a meeting id (a uuid such as 3f2a9c1e-8b4d-4e6f-9a1b-2c3d4e5f6a7b)`);
    }
  } else if (email !== '') {
    if (isValidEmail(email)) target = { email };
    else errors.push(`email: "${email}" is not a valid email address`);
  } else {
    errors.push("meeting: required (a meeting id, or the lead's email in an email column)");
  }

  const tz = zoneCell(record, 'tz', errors);
  const startText = cell(record, 'start');
  let start: Date | undefined;
  if (startText === '') errors.push('start: required (the new start time)');
  else start = timeCell(startText, 'start', { zone: tz ?? ctx.zone, now: ctx.now }, errors);

  if (errors.length > 0 || !target || !start) return { ok: false, errors };
  return { ok: true, row: tz ? { ...target, start, tz } : { ...target, start } };
}
