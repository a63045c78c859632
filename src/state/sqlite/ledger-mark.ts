/**
 * A ledger that was there stays there (issue 44). SQLite reads a missing or 0-byte file as an
 * empty database, so the file alone cannot tell "a new config directory" from "a ledger emptied
 * by a failed copy, a sync tool or an empty backup". What tells them apart is kept outside the
 * file: `ledger-id.json` beside it in the config directory, written once the ledger exists,
 * holding the ledger's identity (a random number also kept in the ledger, as the `ledger-id` row
 * of schedctl_ledger_marks) and the schema version last seen. With it, a missing, empty or
 * other ledger where this one was is refused (STATE_FILE naming the file and what to do), never
 * silently made anew; `schedctl state reset-ledger --yes` starts a new ledger deliberately.
 */
import { randomInt } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { writeAtomic } from '../disk.js';
import { StateFileError, describeOsError, errnoCode } from '../errors.js';

export const LEDGER_MARK_FILE = 'ledger-id.json';
/** The row of schedctl_ledger_marks that holds the ledger's identity (in its at_ms column). */
export const LEDGER_ID_MARK = 'ledger-id';
/** The row of schedctl_ledger_marks that counts the ledger's write steps (in its at_ms column). */
export const LEDGER_SERIAL_MARK = 'serial';
/** The command that starts a new ledger on purpose. */
export const RESET_COMMAND = 'schedctl state reset-ledger --yes';
/** The command that accepts the ledger there as this config directory's, on purpose. */
export const ACCEPT_COMMAND = 'schedctl state accept-ledger';

export interface LedgerMark {
  /** The ledger's identity (its lineage, as Terraform's state calls it): 12 hex digits. */
  ledgerId: string;
  /** The schema version last seen in it. */
  schemaVersion: number;
  /**
   * The highest serial this config directory has seen the ledger at (issue 52 finding 4): the
   * ledger counts its write steps (the `serial` row of schedctl_ledger_marks, one UPDATE in each
   * write transaction), so a restored older copy, whose serial is lower, is told from the ledger
   * it replaced. Absent in a mark written before serials were kept: nothing remembered yet.
   */
  serial?: number;
}

export const markPath = (dir: string): string => join(dir, LEDGER_MARK_FILE);

/** A new identity: a random 48-bit number (exact in a JS number and in SQLite's integer). */
export const newLedgerId = (): number => randomInt(1, 2 ** 48 - 1);
export const formatLedgerId = (id: number): string => id.toString(16).padStart(12, '0');

/** The mark of this config directory's ledger; undefined when none was ever written. A damaged mark is refused. */
export function readLedgerMark(dir: string): LedgerMark | undefined {
  const path = markPath(dir);
  let text: string;
  try {
    text = String(readFileSync(path));
  } catch (error) {
    const code = errnoCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw new StateFileError(path, 'ledger identity', describeOsError(error), MARK_ADVICE);
  }
  const mark = parseMark(text);
  if (!mark) throw new StateFileError(path, 'ledger identity', 'unexpected content', MARK_ADVICE);
  return mark;
}

const MARK_ADVICE = `it was not changed; restore it from a backup, or run \`${RESET_COMMAND}\` to start a new ledger`;

export function parseMark(text: string): LedgerMark | undefined {
  let json: Partial<Record<keyof LedgerMark, unknown>>;
  try {
    // Object(): `null` or a number reads as an object without the fields.
    json = Object(JSON.parse(text));
  } catch {
    return undefined;
  }
  const { ledgerId, schemaVersion, serial } = json;
  if (typeof ledgerId !== 'string' || !/^[0-9a-f]{12}$/.test(ledgerId) || !Number.isInteger(schemaVersion))
    return undefined;
  if (serial !== undefined && !(Number.isInteger(serial) && (serial as number) >= 0)) return undefined;
  return {
    ledgerId,
    schemaVersion: schemaVersion as number,
    ...(serial !== undefined ? { serial: serial as number } : {}),
  };
}

/**
 * Writes the mark. A directory that cannot be written (a read-only one, read by a command that
 * only reads) keeps no mark: the next write of the ledger writes it.
 */
export function writeLedgerMark(dir: string, mark: LedgerMark): void {
  try {
    writeAtomic(markPath(dir), `${JSON.stringify(mark)}\n`);
  } catch {
    // See above: a hint kept for later, never worth failing a command that only reads.
  }
}

export function removeLedgerMark(dir: string): void {
  rmSync(markPath(dir), { force: true });
}

/** What the ledger file looks like, as the mark judges it. */
export type LedgerFound =
  | { kind: 'missing' }
  | { kind: 'empty' }
  | { kind: 'ledger'; ledgerId: string | undefined; schemaVersion: number; serial?: number | undefined };

/**
 * Why the file where the marked ledger was cannot be used, or undefined when it can. A ledger
 * without an identity yet (made before identities were kept) is this one: it takes the mark's.
 */
export function refusal(where: string, mark: LedgerMark | undefined, found: LedgerFound): StateFileError | undefined {
  if (!mark) return undefined;
  const restore = `restore it from a backup, or run \`${RESET_COMMAND}\` to start a new, empty ledger (its meetings and attempts then no longer keep a lead from a second booking)`;
  const what = `this config directory's ledger (id ${mark.ledgerId}, ${markPath(join(where, '..'))})`;
  switch (found.kind) {
    case 'missing':
      return new StateFileError(where, 'ledger database', `it is missing: ${what} was here`, restore);
    case 'empty':
      return new StateFileError(where, 'ledger database', `it is empty: ${what} was here`, restore);
    case 'ledger':
      if (found.ledgerId === undefined) return undefined;
      if (found.ledgerId !== mark.ledgerId)
        return new StateFileError(
          where,
          'ledger database',
          `it is another ledger (id ${found.ledgerId}), not ${what}`,
          `it was not changed; ${restore}; or, if it is the ledger to keep (copied from another config directory on purpose), run \`${ACCEPT_COMMAND}\``,
        );
      if (mark.serial !== undefined && (found.serial ?? 0) < mark.serial)
        return new StateFileError(
          where,
          'ledger database',
          `it is an older copy of this config directory's ledger (id ${mark.ledgerId}): at serial ${found.serial ?? 0}, while ${markPath(join(where, '..'))} has seen it at ${mark.serial} (a backup restored?); a lead booked since that copy would be booked again`,
          `it was not changed; put the newer file back, or, if this copy is the one to keep, run \`${ACCEPT_COMMAND}\` (the meetings and attempts recorded since it was taken then no longer keep a lead from a second booking)`,
        );
      return undefined;
  }
}
