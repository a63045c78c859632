import { Option } from 'commander';

/** The flags of a bulk `--file` run, shared by `route` and `reschedule` (docs/bulk.md). */
export function batchOptions(): Option[] {
  return [
    new Option(
      '--file <file>',
      'run one row at a time from a CSV (header row) or JSON Lines file, or - for stdin; resumable (see "Bulk work")',
    ),
    new Option(
      '--from <file>',
      'the same as --file (kept for scripts; elsewhere --from is a time, as in slots and meetings ls)',
    ),
    new Option(
      '--dry-run',
      'with --file: validate every row and print the plan (rows, requests, minimum duration); send nothing',
    ),
    new Option('--skip-invalid', 'with --file: send the valid rows even when some rows are invalid'),
    new Option('--out <file>', 'with --file: also write one result per row to this CSV file'),
  ];
}
