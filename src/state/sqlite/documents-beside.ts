/**
 * Versions cannot pass each other (issue 44). A schedctl from before the SQLite ledger keeps the
 * ledger in JSON documents (journal.json, meetings.json, …); once they are moved into ledger.db,
 * such a schedctl would see no documents, take the ledger for empty and book a lead again. So in
 * place of each document this version leaves a stand-in that the older one refuses: its content
 * has the wrong shape for the older schema (a string where it wants a list, a number where it
 * wants a record, keyed "written by a newer schedctl…"), so every command of the older version
 * that reads the ledger stops with its "not a readable schedctl … file" error, books nothing and
 * changes nothing. The stand-ins are written whenever this version writes its ledger, so an older
 * schedctl is stopped on a config directory that this one set up first too (`profile add`).
 *
 * And whenever real documents appear beside the SQLite ledger (written by an older schedctl after
 * the stand-ins were removed, or before this version's ledger.db existed), they are moved in under
 * the migration's rules (records already in the tables stay as they are), never ignored.
 */
import { existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { writeAtomic } from '../disk.js';

/** The JSON ledger documents of a schedctl from before the tables. */
export const DOCUMENT_FILES = ['journal.json', 'meetings.json', 'outcomes.json', 'fires.json', 'events.json'];
/** Where those are put once moved in. */
export const DOCUMENTS_ASIDE = 'ledger-documents-before-sqlite';
/** The field that marks a stand-in (read by this version only). */
export const STAND_IN_FIELD = 'ledgerMovedInto';

const UPGRADE = 'written by a newer schedctl: this ledger moved into ledger.db; upgrade schedctl to use it';

/**
 * Each document's top-level key, and a value the older schema refuses there: a list where it
 * wants one is given a string; a record is given one entry whose key (quoted in the older
 * version's error, as the path of what it refused) says what happened.
 */
const REFUSED: Record<string, [string, unknown]> = {
  'journal.json': ['entries', UPGRADE],
  'fires.json': ['fires', UPGRADE],
  'meetings.json': ['meetings', { [UPGRADE]: 0 }],
  'outcomes.json': ['outcomes', { [UPGRADE]: 0 }],
  'events.json': ['aliases', { [UPGRADE]: 0 }],
};

/** The text of the stand-in for the document `name`. */
export function standInText(name: string): string {
  // Any other name gets the journal's shape: a string where a list is wanted.
  const [key, value] = REFUSED[name] ?? REFUSED['journal.json']!;
  return `${JSON.stringify({ [key]: value, [STAND_IN_FIELD]: 'ledger.db', note: UPGRADE }, null, 2)}\n`;
}

/** Whether the file at `path` is a stand-in this version left (not a document to move in). */
export function isStandIn(path: string): boolean {
  try {
    // `null`, a number or a string: no field; null throws, and counts as no stand-in too.
    return typeof (JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>)[STAND_IN_FIELD] === 'string';
  } catch {
    return false;
  }
}

/** The documents in `dir` to move in: there, and not a stand-in (a damaged one counts: reading it says so). */
export function documentsBeside(dir: string): string[] {
  return DOCUMENT_FILES.filter((name) => existsSync(join(dir, name)) && !isStandIn(join(dir, name)));
}

/**
 * Whether every document's place holds a stand-in.
 * @internal The tests' witness of placeStandIns (the store itself only places them and reads each one).
 */
export function standInsInPlace(dir: string): boolean {
  return DOCUMENT_FILES.every((name) => isStandIn(join(dir, name)));
}

/** Writes a stand-in wherever no document is (never over a document: those are moved in first). */
export function placeStandIns(dir: string): void {
  for (const name of DOCUMENT_FILES) {
    const path = join(dir, name);
    if (existsSync(path)) continue;
    try {
      writeAtomic(path, standInText(name));
    } catch {
      // A directory that cannot be written: the ledger's own write has failed or will fail first.
    }
  }
}

/**
 * The documents moved in go to a directory beside the database (a later move beside an earlier
 * one: the name with the time), kept, never read again; a stand-in takes each one's place.
 * Returns the names moved.
 */
export function putDocumentsAside(dir: string, now: number = Date.now()): { moved: string[]; aside: string } {
  const aside = join(dir, DOCUMENTS_ASIDE);
  const moved: string[] = [];
  for (const name of DOCUMENT_FILES) {
    const path = join(dir, name);
    if (!existsSync(path) || isStandIn(path)) continue;
    try {
      mkdirSync(aside, { recursive: true, mode: 0o700 });
      const target = existsSync(join(aside, name)) ? `${name}.${now}` : name;
      renameSync(path, join(aside, target));
      moved.push(name);
    } catch {
      // The records are in the database already; a file left in place is moved in again (records
      // already there stay as they are) by the next run.
    }
  }
  placeStandIns(dir);
  return { moved, aside };
}
