/**
 * `schedctl state reset-ledger --yes`: the deliberate start of a new ledger where one was (the
 * refusals of ledger-mark.ts name it). Nothing is deleted: the file there (missing, emptied,
 * another ledger, damaged) is renamed with its -wal and -shm files to
 * `ledger.db.before-reset-<time>` (its WAL beside it, so it still opens as it was), the mark is
 * dropped, and a new, empty ledger is made with a new identity.
 */
import { lstatSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { StateWriteError } from '../errors.js';
import { LEDGER_DB } from './engine.js';
import { readLedgerMark, removeLedgerMark } from './ledger-mark.js';
import type { Sql } from '../sql/types.js';

export interface LedgerReset {
  /** The new ledger's file. */
  ledger: string;
  /** Its identity (12 hex digits). */
  ledgerId: string;
  /** Where the former files went (empty when there were none). */
  setAside: string[];
}

/** There, as a file or a link (a dangling symlink too: it is set aside like the rest). */
const exists = (path: string): boolean => lstatSync(path, { throwIfNoEntry: false }) !== undefined;

/** Sets the ledger there aside, then `open` (a write through the store) makes the new one. */
export async function resetLedger(dir: string, open: () => Promise<Sql>, now: Date): Promise<LedgerReset> {
  const where = join(dir, LEDGER_DB);
  const aside = `${where}.before-reset-${now.toISOString().replace(/[:.]/g, '-')}`;
  const setAside: string[] = [];
  for (const [from, to] of [
    [where, aside],
    [`${where}-wal`, `${aside}-wal`],
    [`${where}-shm`, `${aside}-shm`],
  ] as const) {
    if (!exists(from)) continue;
    try {
      renameSync(from, to);
    } catch (error) {
      throw new StateWriteError(from, error);
    }
    setAside.push(to);
  }
  removeLedgerMark(dir);
  // An empty transaction makes the file, its schema, identity and mark.
  await (await open()).transaction(async () => undefined);
  // Written by that first write (its directory is writable: the files were just moved in it).
  return { ledger: where, ledgerId: readLedgerMark(dir)!.ledgerId, setAside };
}
