/**
 * What happened to each row of a bulk run: one result per row, written as it is known (JSON
 * Lines or CSV), and the run's summary and exit code.
 */
import type { Meeting } from '../api/schemas.js';
import { apiMeeting } from '../documents/meeting.js';
import { ROW_STATUSES, type BulkRowDocument } from '../documents/schemas.js';

// The statuses are the documents' (the --json contract), said once there.
export { ROW_STATUSES };
export type RowStatus = (typeof ROW_STATUSES)[number];

/** Statuses that count as done: `redirect` and `none` are valid workflow outcomes, not errors (spec). */
export const OK_STATUSES: readonly RowStatus[] = ['booked', 'already_booked', 'moved', 'skipped', 'redirect', 'none'];

export interface RowResult {
  /** The row's line in the input. */
  row: number;
  /** What identifies the row to a person: the lead's email, or the meeting id. */
  key: string;
  status: RowStatus;
  meetingId?: string;
  /** An API error code (SLOT_TAKEN, …) or schedctl's own (OUTCOME_UNKNOWN, …). */
  code?: string;
  message?: string;
  /** The API's Meeting when this run booked or moved it (JSON Lines only: not kept in the run log or --out). */
  meeting?: Meeting;
}

/** A row's `--json` line (src/documents/schemas.ts bulkLine): every field present, null when not known. */
export function rowDocument(r: RowResult): BulkRowDocument {
  return {
    row: r.row,
    key: r.key,
    status: r.status,
    meetingId: r.meetingId ?? r.meeting?.id ?? null,
    meeting: r.meeting ? apiMeeting(r.meeting) : null,
    code: r.code ?? null,
    message: r.message ?? null,
  };
}

/** One JSON object and a newline (stdout of `--json`). */
export function toJsonLine(result: RowResult): string {
  return `${JSON.stringify(rowDocument(result))}\n`;
}

export const CSV_RESULT_HEADER = ['row', 'key', 'status', 'meeting_id', 'code', 'message'] as const;

export interface CsvResultWriter {
  write(result: RowResult): void;
}

/**
 * Writes the header at once, then one CSV line per result. Results arrive at the API's pace
 * (30 requests a minute), or as fast as invalid rows are read: a few MB at most for a large
 * file, so back pressure is left to the stream's buffer.
 */
export function createCsvResultWriter(stream: NodeJS.WritableStream): CsvResultWriter {
  stream.write(csvLine(CSV_RESULT_HEADER));
  return {
    write(result) {
      stream.write(
        csvLine([
          String(result.row),
          result.key,
          result.status,
          result.meetingId ?? '',
          result.code ?? '',
          result.message ?? '',
        ]),
      );
    },
  };
}

export function csvLine(cells: readonly string[]): string {
  return `${cells.map(csvCell).join(',')}\r\n`;
}

/**
 * RFC 4180 quoting. A cell a spreadsheet would run as a formula (`=`, `+`, `-`, `@`, tab or CR
 * first) gets a leading `'`: messages come from the server, and this file is opened in
 * spreadsheets. Machine readers should take `--json`, which carries values unchanged.
 */
export function csvCell(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]|^\s|\s$/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export interface ResultSummary {
  total: number;
  byStatus: Record<RowStatus, number>;
  /** Lines of the rows that failed or were invalid, in input order. */
  failedRows: number[];
}

export function summarize(results: Iterable<RowResult>): ResultSummary {
  const byStatus = Object.fromEntries(ROW_STATUSES.map((s) => [s, 0])) as Record<RowStatus, number>;
  const failedRows: number[] = [];
  let total = 0;
  for (const r of results) {
    total++;
    byStatus[r.status]++;
    if (!OK_STATUSES.includes(r.status)) failedRows.push(r.row);
  }
  failedRows.sort((a, b) => a - b);
  return { total, byStatus, failedRows };
}
