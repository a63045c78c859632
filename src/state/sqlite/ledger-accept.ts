/**
 * `schedctl state accept-ledger`: the deliberate acceptance of the ledger.db there as this config
 * directory's (issue 52 finding 4), past the refusal of an older copy (a backup restored: its
 * serial is lower than the one remembered) or of another ledger (copied from another config
 * directory). Nothing in the file changes: the mark beside it (ledger-id.json) is rewritten with
 * the file's identity and serial, so the ledger is used from there on as it is.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { StateFileError } from '../errors.js';
import {
  formatLedgerId,
  LEDGER_ID_MARK,
  markPath,
  readLedgerMark,
  removeLedgerMark,
  writeLedgerMark,
} from './ledger-mark.js';
import { LEDGER_DB, loadSqlite, serialOf } from './engine.js';
import { SQLITE_SCHEMA_VERSION } from './migrate.js';

export interface LedgerAccepted {
  /** The ledger file accepted. */
  ledger: string;
  /** Its identity (12 hex digits), null for a ledger without one yet (it is given one on its next write). */
  ledgerId: string | null;
  /** Its serial, now the one remembered. */
  serial: number;
  /** What the config directory remembered before (null: nothing). */
  was: { ledgerId: string; serial: number | null } | null;
  /** The mark file rewritten. */
  mark: string;
}

export async function acceptLedger(dir: string): Promise<LedgerAccepted> {
  const where = join(dir, LEDGER_DB);
  if (!existsSync(where))
    throw new StateFileError(
      where,
      'ledger database',
      'it is missing: there is no ledger to accept',
      'restore it from a backup, or run `schedctl state reset-ledger --yes` to start a new, empty ledger',
    );
  // Read before the file is opened: a damaged mark is replaced, not refused, here.
  let was: LedgerAccepted['was'] = null;
  try {
    const mark = readLedgerMark(dir);
    if (mark) was = { ledgerId: mark.ledgerId, serial: mark.serial ?? null };
  } catch {
    was = null;
  }
  const { DatabaseSync } = await loadSqlite();
  let ledgerId: string | undefined;
  let serial: number;
  try {
    const db = new DatabaseSync(where, { readOnly: true });
    try {
      const row = db.prepare('SELECT at_ms FROM schedctl_ledger_marks WHERE mark = ?').get(LEDGER_ID_MARK) as
        { at_ms: number } | undefined;
      ledgerId = row ? formatLedgerId(Number(row.at_ms)) : undefined;
      serial = serialOf(db) ?? 0;
    } finally {
      db.close();
    }
  } catch (error) {
    if (error instanceof StateFileError) throw error;
    throw new StateFileError(
      where,
      'ledger database',
      `it cannot be read as a ledger (${error instanceof Error ? error.message : String(error)})`,
      'restore it from a backup, or run `schedctl state reset-ledger --yes` to start a new, empty ledger',
    );
  }
  // A ledger without an identity yet takes one, and its mark, on its next write.
  if (ledgerId === undefined) removeLedgerMark(dir);
  else writeLedgerMark(dir, { ledgerId, schemaVersion: SQLITE_SCHEMA_VERSION, serial });
  return { ledger: where, ledgerId: ledgerId ?? null, serial, was, mark: markPath(dir) };
}
