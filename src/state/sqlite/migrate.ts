/**
 * The SQLite ledger's schema: numbered migrations (`PRAGMA user_version` is the version reached),
 * and `application_id` marking the file as schedctl's. A file of another program, or one a newer
 * schedctl migrated further, is refused (naming the file) and never written. The first migration
 * also moves in the ledger documents of a schedctl from before the tables (journal.json,
 * meetings.json, …), in the same transaction, then puts those files aside.
 */
import { join } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { DocumentsNotMovedError, FOREIGN_LEDGER, StateFileError, StateTooNewError } from '../errors.js';
import type { LedgerCounts } from '../sql/documents.js';
import { ledgerTables, runTables, workspaceKeyTables } from '../sql/tables.js';
import { answerOf } from '../sql/last.js';
import type { Sql, SqlValue } from '../sql/types.js';
import { putDocumentsAside } from './documents-beside.js';
import { LEDGER_ID_MARK, newLedgerId } from './ledger-mark.js';

/** "SCHD": this file is a schedctl ledger. */
export const APPLICATION_ID = 0x53434844;

/** Migration N brings the schema from version N-1 to N. Never edit one that has shipped: add the next. */
const MIGRATIONS: Record<number, string[]> = {
  1: ledgerTables('integer PRIMARY KEY AUTOINCREMENT', 'integer'),
  // Workspaces as sets of keys (state/workspaces.ts); the records stay where they are.
  2: workspaceKeyTables('integer'),
  // The bulk run logs, kept in files before (runs/), as the team state keeps them.
  3: runTables('integer PRIMARY KEY AUTOINCREMENT', 'integer'),
};
export const SQLITE_SCHEMA_VERSION = 3;

/** Every table the schema has: a ledger missing one is damaged (STATE_FILE), not a bug of ours. */
export const LEDGER_TABLES: readonly string[] = Object.values(MIGRATIONS)
  .flat()
  .flatMap((sql) => /^\s*CREATE TABLE (\w+)/.exec(sql)?.[1] ?? []);

export interface MigrateOptions {
  busyMs: number;
  /** Whether the config directory holds ledger documents to move in. */
  hasDocuments: () => boolean;
  /** Moves them into the tables (in the migration's transaction); resolves to what was read and written. */
  importDocuments: ((sql: Sql, keep?: boolean) => Promise<{ read: LedgerCounts; written: LedgerCounts }>) | undefined;
  /** Told once, on stderr: where the documents were put. */
  warn?: ((line: string) => void) | undefined;
  /**
   * A ledger was here (ledger-mark.ts): a file with no schema is one emptied, refused with this
   * error rather than made anew.
   */
  emptied?: (() => Error | undefined) | undefined;
}

/** Makes the schema current (or refuses the file); moves the documents in on the first migration. */
export async function migrate(db: DatabaseSync, path: string, o: MigrateOptions, inMemory = false): Promise<void> {
  db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.round(o.busyMs))}`);
  const found = check(db, path);
  if (found === SQLITE_SCHEMA_VERSION) return;
  if (found === 0) {
    const emptied = o.emptied?.();
    if (emptied) throw emptied;
  }
  // Outside a transaction (SQLite refuses it inside one); it stays set in the file.
  if (!inMemory) db.exec('PRAGMA journal_mode = WAL');
  db.exec('BEGIN IMMEDIATE');
  try {
    // Another process may have migrated while this one waited for the write lock.
    const now = check(db, path);
    for (let v = now + 1; v <= SQLITE_SCHEMA_VERSION; v++) for (const sql of MIGRATIONS[v] ?? []) db.exec(sql);
    // The ledger's identity (ledger-mark.ts), made with it; a ledger of before identities gets one here too.
    if (!inMemory)
      db.prepare('INSERT INTO schedctl_ledger_marks (mark, at_ms) VALUES (?, ?) ON CONFLICT (mark) DO NOTHING').run(
        LEDGER_ID_MARK,
        newLedgerId(),
      );
    let moved = false;
    if (now === 0 && o.importDocuments && o.hasDocuments()) {
      const { read, written } = await o.importDocuments(inTransaction(db, path));
      // Every record read is in the tables, or nothing is: the files stay and the error names them.
      for (const kind of Object.keys(read) as (keyof LedgerCounts)[])
        if (written[kind] !== read[kind])
          throw new DocumentsNotMovedError(path, `wrote ${written[kind]} of ${read[kind]} ${kind} records`);
      moved = true;
    }
    db.exec(`PRAGMA application_id = ${APPLICATION_ID}`);
    db.exec(`PRAGMA user_version = ${SQLITE_SCHEMA_VERSION}`);
    db.exec('COMMIT');
    if (moved && !inMemory) {
      const aside = putDocumentsAside(join(path, '..'));
      if (aside.moved.length)
        o.warn?.(
          `note: the ledger moved into ${path}; its former files (${aside.moved.join(', ')}) are kept in ${aside.aside}`,
        );
    }
  } catch (error) {
    try {
      db.exec('ROLLBACK');
    } catch {
      // Already rolled back (SQLite ends a transaction itself on some errors).
    }
    throw error;
  }
}

/** The schema version found; refuses another program's file and a newer schedctl's. */
function check(db: DatabaseSync, path: string): number {
  // One statement, one snapshot: read apart, another process's migration could commit in between.
  const row = db
    .prepare(
      `SELECT (SELECT application_id FROM pragma_application_id) AS app,
              (SELECT user_version FROM pragma_user_version) AS version,
              (SELECT count(*) FROM sqlite_master) AS tables`,
    )
    .get() as Record<string, SqlValue>;
  const [app, version, tables] = [Number(row.app), Number(row.version), Number(row.tables)];
  if (app !== APPLICATION_ID && (app !== 0 || version !== 0 || tables > 0))
    throw new StateFileError(path, 'ledger database', 'it is a SQLite database of another program', FOREIGN_LEDGER);
  if (version > SQLITE_SCHEMA_VERSION) throw new StateTooNewError(path, version, SQLITE_SCHEMA_VERSION);
  return version;
}

/**
 * A connection's statements as they are, as an Sql handle: for work inside a transaction its
 * caller holds (the migration's own, whose documents' import writes through it; the rate cache's
 * draw). No statement cache and no retry on BUSY: the transaction's BEGIN had those.
 */
export function inTransaction(db: DatabaseSync, where: string): Sql {
  const sql: Sql = {
    where,
    all: async <T>(text: string, params: readonly SqlValue[] = []) => db.prepare(text).all(...params) as T[],
    run: async (text: string, params: readonly SqlValue[] = []) => Number(db.prepare(text).run(...params).changes),
    step: async (statements) => statements.map(([text, params = []]) => answerOf(db.prepare(text), text, params)),
    transaction: (work) => work(sql),
  };
  return sql;
}
