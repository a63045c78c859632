/**
 * Reading one cell of a bulk row. Every problem is a line `<column>: <reason>` (the form of the
 * API's INVALID_REQUEST details and of buildResponses), so a row's errors name what to fix.
 */
import { closest } from '../domain/closest.js';
import { parseLoadedTimeExpression } from '../domain/human-time.js';
import { formatInZone, resolveZone } from '../domain/time.js';
import { CliError } from '../errors.js';

export type RowValidation<T> = { ok: true; row: T } | { ok: false; errors: string[] };

/** The trimmed value, '' when the column is absent. */
export function cell(record: Record<string, string>, column: string): string {
  return (record[column] ?? '').trim();
}

/** An IANA zone from the cell, canonical spelling; undefined when empty or invalid (then an error is added). */
export function zoneCell(record: Record<string, string>, column: string, errors: string[]): string | undefined {
  const value = cell(record, column);
  if (value === '') return undefined;
  try {
    const zone = resolveZone(value, column);
    // resolveZone keeps the spelling it was given (luxon's IANAZone.name does); Intl knows the
    // canonical one, which is what the booking's leadTimezone should carry.
    return new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    errors.push(
      `${column}: unknown time zone "${value}"; use an IANA zone name such as Europe/Berlin, America/New_York or UTC`,
    );
    return undefined;
  }
}

/** A future instant in any time form schedctl reads (a local time is read in `zone`; times as people say them once loadTimeExpressions() ran). */
export function timeCell(
  value: string,
  column: string,
  ctx: { zone: string; now: Date },
  errors: string[],
): Date | undefined {
  let at: Date;
  try {
    // A row's error keeps the message (`invalid value "…": why`); the hints, which name the zone's input, are not shown.
    at = parseLoadedTimeExpression(value, { zone: ctx.zone, now: ctx.now, name: 'value', zoneInput: 'the tz column' });
  } catch (error) {
    errors.push(`${column}: ${error instanceof CliError ? error.message : String(error)}`);
    return undefined;
  }
  if (at.getTime() < ctx.now.getTime()) {
    errors.push(`${column}: ${formatInZone(at, ctx.zone)} is in the past`);
    return undefined;
  }
  return at;
}

/** `notes: unknown column; did you mean "note"?`, or the list of known columns. */
export function unknownColumn(column: string, known: readonly string[]): string {
  const suggestion = closest(column, known);
  return `${column}: unknown column; ${suggestion ? `did you mean "${suggestion}"?` : `columns: ${known.join(', ')}`}`;
}
