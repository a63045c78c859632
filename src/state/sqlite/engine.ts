/**
 * The ledger on this machine: one SQLite database, `<config dir>/ledger.db`, through Node's
 * built-in node:sqlite (no native module to build or download). WAL, so readers never wait for
 * a writer and several schedctl processes at once are normal; a busy timeout, so a writer waits
 * for another's transaction (bounded: then StateLockError naming the file). Writes of one step
 * are one `BEGIN IMMEDIATE` transaction (the write lock taken first: two transactions never
 * deadlock by upgrading). The file is 0600, like every state file (SQLite gives its -wal and
 * -shm files the database file's mode).
 *
 * Opening creates nothing: a command that only reads, before the first write, reads an empty
 * ledger from memory; the first write creates the file (and moves any ledger documents of an
 * older schedctl in: migrate.ts).
 */
import { closeSync, existsSync, openSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { ensureDir } from '../disk.js';
import { DAMAGED_LEDGER, StateFileError, StateLockError, StateWriteError } from '../errors.js';
import type { Answer, Sql, SqlValue, Statement } from '../sql/types.js';
import { answerOf, isWrite } from '../sql/last.js';
import { documentsBeside, placeStandIns, putDocumentsAside } from './documents-beside.js';
import {
  formatLedgerId,
  LEDGER_ID_MARK,
  LEDGER_SERIAL_MARK,
  newLedgerId,
  readLedgerMark,
  refusal,
  writeLedgerMark,
  type LedgerMark,
} from './ledger-mark.js';
import { inTransaction, LEDGER_TABLES, migrate, SQLITE_SCHEMA_VERSION, type MigrateOptions } from './migrate.js';

export const LEDGER_DB = 'ledger.db';
/** How long a long-lived process (the MCP server) lets the remembered serial lag its ledger at most. */
const MARK_EVERY_MS = 5_000;

/** SQLite's primary result codes that are not a bug of ours (https://sqlite.org/rescode.html). */
const BUSY = 5;
const LOCKED = 6;
const READONLY = 8;
const IOERR = 10;
const CORRUPT = 11;
const FULL = 13;
const CANTOPEN = 14;
const NOTADB = 26;
const PERM = 3;

export interface SqliteOptions extends MigrateOptions {
  /** How long a write waits for another process's transaction (the busy timeout). */
  busyMs: number;
}

/**
 * node:sqlite is loaded on first use: a command that touches no ledger does not pay for it.
 * On Node 22 its load prints an ExperimentalWarning: that one warning is not the user's business.
 */
let sqlite: typeof import('node:sqlite') | undefined;
export async function loadSqlite(): Promise<typeof import('node:sqlite')> {
  if (sqlite) return sqlite;
  const emit = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const text = typeof warning === 'string' ? warning : warning.message;
    if (/SQLite/i.test(text)) return;
    (emit as (...a: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    sqlite = await import('node:sqlite');
  } finally {
    process.emitWarning = emit;
  }
  return sqlite;
}

/**
 * One connection per database file per process: two in one process would deadlock (SQLite's busy
 * wait blocks the event loop, so the connection holding the write lock could never finish).
 * Every store and state of this process shares it; its queue orders their steps.
 */
const shared = new Map<string, { ledger: SqliteLedger; users: number }>();
export function sqliteLedger(dir: string, opts: SqliteOptions): SqliteLedger {
  const path = join(dir, LEDGER_DB);
  const held = shared.get(path) ?? { ledger: new SqliteLedger(dir, opts), users: 0 };
  held.users++;
  shared.set(path, held);
  return held.ledger;
}
/** Done with a ledger from sqliteLedger: its connection closes with its last user. */
export function releaseLedger(ledger: SqliteLedger): void {
  const held = shared.get(ledger.where);
  if (!held || held.ledger !== ledger) return ledger.close();
  if (--held.users > 0) return;
  shared.delete(ledger.where);
  ledger.close();
}

export class SqliteLedger implements Sql {
  readonly where: string;
  private db: DatabaseSync | undefined;
  /** The ledger of a command that has read but not yet written, when no file exists: empty, in memory. */
  private blank: DatabaseSync | undefined;
  private readonly statements = new Map<string, StatementSync>();
  /** One statement or transaction at a time on the connection: an async step never interleaves another's. */
  private queue: Promise<unknown> = Promise.resolve();
  /** How long steps refused one after another have waited for another process's lock (untilFree). */
  private spentMs = 0;
  /** The busy timeout set on the open connection. */
  private busySet: number | undefined;
  /** The open connection is read-only (a command that only reads a file it cannot write). */
  private readOnly = false;
  /** The open ledger's identity and the serial the config directory's mark holds for it (ledger-mark.ts). */
  private marked:
    | {
        ledgerId: string;
        serial: number | undefined;
        pending?: number | undefined;
        writtenAt: number;
        onExit?: (() => void) | undefined;
      }
    | undefined;

  constructor(
    private readonly dir: string,
    private readonly opts: SqliteOptions,
  ) {
    this.where = join(dir, LEDGER_DB);
  }

  all<T>(sql: string, params: readonly SqlValue[] = []): Promise<T[]> {
    // A `DELETE … RETURNING` is a write, asked for its rows.
    return this.serial(isWrite(sql), (db) => this.stmt(db, sql).all(...params) as T[]);
  }

  run(sql: string, params: readonly SqlValue[] = []): Promise<number> {
    return this.serial(true, (db) => Number(this.stmt(db, sql).run(...params).changes));
  }

  step(statements: readonly Statement[]): Promise<Answer[]> {
    return this.transaction((tx) => tx.step(statements));
  }

  transaction<R>(work: (tx: Sql) => Promise<R>): Promise<R> {
    return this.enqueue(async () => {
      const db = await this.untilFree(() => this.open(true));
      await this.untilFree(async () => this.guard(() => db.exec('BEGIN IMMEDIATE')));
      try {
        const result = await work(this.inside(db));
        // One more write step: the ledger's serial grows in the same transaction (ledger-mark.ts).
        const serial = this.guard(() => bumpSerial(this.stmt(db, BUMP_SERIAL)));
        this.guard(() => db.exec('COMMIT'));
        this.remember(serial);
        return result;
      } catch (error) {
        try {
          db.exec('ROLLBACK');
        } catch {
          // Already ended (SQLite rolls back itself after some errors, a full disk among them).
        }
        throw error;
      }
    });
  }

  /**
   * The config directory remembers the highest serial it has seen, outside the file: after the
   * commit (so the mark is never ahead of the ledger), written once when the ledger is closed at
   * the command's end (one atomic write, ~3 ms with its fsync, per command rather than per step),
   * at the latest when the process exits, and in a long-lived process (the MCP server) at most
   * MARK_EVERY_MS after a step. Two processes writing it at once may leave the lower of their
   * two, which only makes the check less strict, never refuses a good ledger.
   */
  private remember(serial: number | undefined): void {
    const marked = this.marked;
    if (serial === undefined || !marked || serial <= (marked.pending ?? marked.serial ?? 0)) return;
    marked.pending = serial;
    if (Date.now() - marked.writtenAt >= MARK_EVERY_MS) return this.writeMark();
    if (!marked.onExit) {
      marked.onExit = () => this.writeMark();
      process.once('exit', marked.onExit);
    }
  }

  /** Writes the serial waiting to be remembered, if any. */
  private writeMark(): void {
    const marked = this.marked;
    if (!marked || marked.pending === undefined) return;
    marked.serial = marked.pending;
    marked.pending = undefined;
    marked.writtenAt = Date.now();
    if (marked.onExit) process.removeListener('exit', marked.onExit);
    marked.onExit = undefined;
    writeLedgerMark(this.dir, {
      ledgerId: marked.ledgerId,
      schemaVersion: SQLITE_SCHEMA_VERSION,
      serial: marked.serial,
    });
  }

  close(): void {
    this.writeMark();
    this.db?.close();
    this.blank?.close();
    this.db = this.blank = undefined;
    this.busySet = undefined;
    this.readOnly = false;
    this.statements.clear();
  }

  /** The handle `work` uses inside a transaction: its statements run at once, on the open transaction. */
  private inside(db: DatabaseSync): Sql {
    const exec = <T>(f: () => T) => Promise.resolve().then(() => this.guard(f));
    return {
      where: this.where,
      all: <T>(sql: string, params: readonly SqlValue[] = []) => exec(() => this.stmt(db, sql).all(...params) as T[]),
      run: (sql: string, params: readonly SqlValue[] = []) =>
        exec(() => Number(this.stmt(db, sql).run(...params).changes)),
      step: (statements) =>
        exec(() => statements.map(([sql, params = []]) => answerOf(this.stmt(db, sql), sql, params))),
      transaction: (work) => work(this.inside(db)),
    };
  }

  /**
   * SQLite answers BUSY without waiting for its busy timeout where waiting could deadlock, or while
   * another process opens, migrates or recovers the database: `begin` (opening, BEGIN, a statement
   * on its own, none of which has changed anything when it is refused) is tried again, with short
   * pauses, until the busy timeout has passed.
   *
   * One wait per lock held, not one per step: steps refused one after another (a command's reads
   * asked together, then its fallback read) share one busy timeout, so a lock held by another
   * process costs a command about busyMs in all, as the docs say, not busyMs per step. A step that
   * gets through gives the next its whole wait again.
   */
  private async untilFree<T>(begin: () => Promise<T>): Promise<T> {
    const start = Date.now();
    const deadline = start + this.remainingMs();
    this.busyTimeout(this.remainingMs());
    for (let pause = 10; ; pause = Math.min(2 * pause, 200)) {
      try {
        const result = await begin();
        this.spentMs = 0;
        return result;
      } catch (error) {
        if (!(error instanceof StateLockError)) throw error;
        if (Date.now() >= deadline) {
          this.spentMs += Date.now() - start;
          throw error;
        }
        this.busyTimeout(deadline - Date.now());
        await new Promise((resolve) => setTimeout(resolve, pause));
      }
    }
  }

  /** What is left of the wait for another process's lock, for the next step (untilFree). */
  remainingMs(): number {
    return Math.max(0, this.opts.busyMs - this.spentMs);
  }

  /** SQLite's own wait inside one statement, kept within what is left (the open connection's; a new one gets it in migrate). */
  private busyTimeout(ms: number): void {
    const value = Math.max(0, Math.round(ms));
    if (!this.db || value === this.busySet) return;
    this.db.exec(`PRAGMA busy_timeout = ${value}`);
    this.busySet = value;
  }

  private serial<T>(write: boolean, f: (db: DatabaseSync) => T): Promise<T> {
    return this.enqueue(() => this.untilFree(() => this.execute(write, f)));
  }

  private async execute<T>(write: boolean, f: (db: DatabaseSync) => T): Promise<T> {
    const db = await this.open(write);
    return this.guard(() => f(db));
  }

  private enqueue<T>(step: () => Promise<T>): Promise<T> {
    const next = this.queue.then(step, step);
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** Prepared once per connection: the cache holds the blank's statements until the file opens, then the file's. */
  private stmt(db: DatabaseSync, sql: string): StatementSync {
    let s = this.statements.get(sql);
    if (!s) this.statements.set(sql, (s = db.prepare(sql)));
    return s;
  }

  /** The database file, made (and migrated) on the first write; before it, an empty ledger when there is no file. */
  private async open(write: boolean): Promise<DatabaseSync> {
    if (this.db && !(write && this.readOnly)) return this.db;
    if (this.db) {
      // Opened read-only for the reads before it; a write needs the file opened for writing.
      this.db.close();
      this.db = undefined;
      this.readOnly = false;
      this.busySet = undefined;
      this.statements.clear();
    }
    // A ledger was here: a missing or emptied file is refused, never made anew (ledger-mark.ts).
    const mark = this.guard(() => readLedgerMark(this.dir));
    if (!existsSync(this.where)) {
      const gone = refusal(this.where, mark, { kind: 'missing' });
      if (gone) throw gone;
    }
    if (!write && !existsSync(this.where)) {
      // The documents of a schedctl from before the tables read from memory too: a read-only
      // directory is read as it is, and the first write moves them into the file.
      if (!this.blank) {
        const { DatabaseSync } = await loadSqlite();
        const blank = new DatabaseSync(':memory:');
        try {
          await migrate(blank, this.where, this.opts, true);
        } catch (error) {
          blank.close();
          throw this.failure(error);
        }
        this.blank = blank;
      }
      return this.blank;
    }
    if (write) return this.openForWriting(mark);
    try {
      return await this.openForWriting(mark);
    } catch (error) {
      // A command that only reads, on a file or directory it cannot write (mode 0444, a read-only
      // mount): it reads the file as it is, opened read-only.
      if (!(error instanceof StateWriteError)) throw error;
      const db = await this.openReadOnly(mark);
      if (!db) throw error;
      return db;
    }
  }

  private async openForWriting(mark: LedgerMark | undefined): Promise<DatabaseSync> {
    const { DatabaseSync } = await loadSqlite();
    ensureDir(this.dir);
    // Made by this process only if it created the file (O_EXCL): two processes opening a new
    // ledger at once must not both take it for their own.
    const made = this.guard(() => createExclusive(this.where));
    // The busy timeout is migrate()'s first statement.
    const db = this.guard(() => new DatabaseSync(this.where));
    try {
      // The wait left for this step, not the whole busy timeout (untilFree).
      const busyMs = this.remainingMs();
      await migrate(db, this.where, {
        ...this.opts,
        busyMs,
        emptied: () => refusal(this.where, mark, { kind: 'empty' }),
      });
      this.busySet = Math.max(0, Math.round(busyMs));
      await this.settle(db, mark);
    } catch (error) {
      db.close();
      // A database this run made and could not fill (a damaged ledger document, a full disk) is
      // not left behind: the next run tries again from the same files. Never one another process
      // has filled meanwhile (its migration may be in the -wal file), nor after waiting for a lock.
      const failure = this.failure(error);
      if (made && !(failure instanceof StateLockError) && unmigrated(DatabaseSync, this.where))
        for (const f of [this.where, `${this.where}-wal`, `${this.where}-shm`]) rmSync(f, { force: true });
      throw failure;
    }
    this.blank?.close();
    this.blank = undefined;
    this.statements.clear();
    this.db = db;
    return db;
  }

  /**
   * The file opened read-only, for a command that only reads it and cannot write it; undefined
   * when reading it needs a write first (a migration, documents beside it to move in). Without
   * the right to make its -shm file beside it (a read-only directory), as an immutable file:
   * nothing with this process's rights can be writing it.
   */
  private async openReadOnly(mark: LedgerMark | undefined): Promise<DatabaseSync | undefined> {
    const { DatabaseSync } = await loadSqlite();
    const tryOpen = (where: string | URL): DatabaseSync => {
      const db = new DatabaseSync(where, { readOnly: true });
      try {
        db.prepare('SELECT count(*) FROM sqlite_master').get();
        return db;
      } catch (error) {
        db.close();
        throw error;
      }
    };
    let db: DatabaseSync;
    try {
      db = tryOpen(this.where);
    } catch (error) {
      const code = ((error as { errcode?: number }).errcode ?? 0) & 0xff;
      if (code !== READONLY && code !== CANTOPEN) throw this.failure(error);
      db = this.guard(() => tryOpen(new URL(`${pathToFileURL(this.where).href}?immutable=1`)));
    }
    try {
      const { version, tables } = db
        .prepare(
          'SELECT (SELECT user_version FROM pragma_user_version) AS version, (SELECT count(*) FROM sqlite_master) AS tables',
        )
        .get() as { version: number; tables: number };
      if (Number(version) === 0 && Number(tables) === 0) {
        const emptied = refusal(this.where, mark, { kind: 'empty' });
        if (emptied) throw emptied;
      }
      if (Number(version) !== SQLITE_SCHEMA_VERSION || documentsBeside(this.dir).length) {
        db.close();
        return undefined;
      }
      await migrate(db, this.where, { ...this.opts, busyMs: this.remainingMs() });
      await this.settle(db, mark, true);
    } catch (error) {
      db.close();
      throw this.failure(error);
    }
    this.blank?.close();
    this.blank = undefined;
    this.statements.clear();
    this.db = db;
    this.readOnly = true;
    return db;
  }

  /**
   * After the schema is current: every table there (else the file is damaged), the ledger the one
   * this config directory marked, documents beside it moved in, its identity and mark written,
   * and stand-ins where the documents of an older schedctl would be (documents-beside.ts).
   */
  private async settle(db: DatabaseSync, mark: LedgerMark | undefined, readOnly = false): Promise<void> {
    const tables = new Set(
      (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map(
        (r) => r.name,
      ),
    );
    const missing = LEDGER_TABLES.filter((t) => !tables.has(t));
    if (missing.length)
      throw new StateFileError(
        this.where,
        'ledger database',
        `its table${missing.length > 1 ? 's' : ''} ${missing.join(', ')} ${missing.length > 1 ? 'are' : 'is'} missing`,
        DAMAGED_LEDGER,
      );
    const idOf = () => {
      const row = db.prepare('SELECT at_ms FROM schedctl_ledger_marks WHERE mark = ?').get(LEDGER_ID_MARK) as
        { at_ms: number } | undefined;
      return row ? formatLedgerId(Number(row.at_ms)) : undefined;
    };
    let ledgerId = idOf();
    const serial = serialOf(db);
    const found = { kind: 'ledger' as const, ledgerId, schemaVersion: SQLITE_SCHEMA_VERSION, serial };
    const refused = refusal(this.where, mark, found);
    if (refused) throw refused;
    // Read-only: nothing to move in (openReadOnly checked), nothing written.
    if (readOnly) return;
    if (documentsBeside(this.dir).length) await this.moveInBeside(db);
    else if (ledgerId === undefined) this.writeIn(db, () => giveIdentity(db));
    ledgerId = idOf();
    if (ledgerId === undefined) return; // not writable (a read-only file): nothing to mark yet
    // First use (no serial remembered): the serial there is accepted silently, and remembered.
    const remembered = mark?.ledgerId === ledgerId ? Math.max(mark.serial ?? 0, serial ?? 0) : (serial ?? 0);
    this.writeMark(); // a serial still waiting from a connection opened before (reopened for writing)
    this.marked = { ledgerId, serial: remembered, writtenAt: Date.now() };
    if (mark?.ledgerId !== ledgerId || mark.schemaVersion !== SQLITE_SCHEMA_VERSION || mark.serial !== remembered)
      writeLedgerMark(this.dir, { ledgerId, schemaVersion: SQLITE_SCHEMA_VERSION, serial: remembered });
    placeStandIns(this.dir);
  }

  /**
   * Ledger documents beside a ledger that has its tables (written by an older schedctl later, or
   * before this ledger.db existed): moved in under the migration's rules, records already in the
   * tables staying as they are, in one transaction; then put aside, stand-ins in their place.
   * Their records of before workspaces are attributed again (the attribution's marks dropped).
   */
  private async moveInBeside(db: DatabaseSync): Promise<void> {
    const importer = this.opts.importDocuments;
    if (!importer) return;
    db.exec('BEGIN IMMEDIATE');
    try {
      if (documentsBeside(this.dir).length) {
        await importer(inTransaction(db, this.where), true);
        db.exec("DELETE FROM schedctl_ledger_marks WHERE mark LIKE 'legacy-records:%'");
      }
      giveIdentity(db);
      db.exec('COMMIT');
    } catch (error) {
      try {
        db.exec('ROLLBACK');
      } catch {
        // Already rolled back.
      }
      throw error;
    }
    const aside = putDocumentsAside(this.dir);
    if (aside.moved.length)
      this.opts.warn?.(
        `note: ledger documents beside ${this.where} (${aside.moved.join(', ')}, written by an older schedctl?) were moved into it; the files are kept in ${aside.aside}`,
      );
  }

  /** One small write in a transaction of its own; a file that cannot be written is left as it is. */
  private writeIn(db: DatabaseSync, f: () => void): void {
    try {
      db.exec('BEGIN IMMEDIATE');
      f();
      db.exec('COMMIT');
    } catch {
      try {
        db.exec('ROLLBACK');
      } catch {
        // Not begun, or already rolled back.
      }
    }
  }

  /** Runs `f`, turning what SQLite or the file system reports into the state's own errors (naming the file). */
  private guard<T>(f: () => T): T {
    try {
      return f();
    } catch (error) {
      throw this.failure(error);
    }
  }

  private failure(error: unknown): unknown {
    if (error instanceof Error && 'exitCode' in error) return error; // already one of ours
    const e = error as { errcode?: number; errstr?: string; code?: string; message?: string };
    if (typeof e.errcode !== 'number') {
      // The file system's refusal to create or open the file (EACCES, EROFS, ENOSPC, …).
      return typeof e.code === 'string' && !e.code.startsWith('ERR_') ? new StateWriteError(this.where, error) : error;
    }
    const reason = e.errstr ?? e.message ?? 'unknown error';
    switch (e.errcode & 0xff) {
      case BUSY:
      case LOCKED:
        return new StateLockError(this.where, 'the ledger database');
      case NOTADB:
      case CORRUPT:
        return new StateFileError(this.where, 'ledger database', reason, DAMAGED_LEDGER);
      case FULL:
        return new StateWriteError(this.where, Object.assign(new Error(reason), { code: 'ENOSPC' }));
      case READONLY:
      case PERM:
      case CANTOPEN:
        return new StateWriteError(this.where, Object.assign(new Error(reason), { code: 'EACCES' }));
      case IOERR:
        return new StateWriteError(this.where, Object.assign(new Error(reason), { code: 'EIO' }));
      default:
        return error;
    }
  }
}

/** The ledger's serial (ledger-mark.ts); undefined before its first counted write step. */
export function serialOf(db: DatabaseSync): number | undefined {
  const row = db.prepare('SELECT at_ms FROM schedctl_ledger_marks WHERE mark = ?').get(LEDGER_SERIAL_MARK) as
    { at_ms: number } | undefined;
  return row ? Number(row.at_ms) : undefined;
}

const BUMP_SERIAL =
  'INSERT INTO schedctl_ledger_marks (mark, at_ms) VALUES (?, 1) ON CONFLICT (mark) DO UPDATE SET at_ms = at_ms + 1 RETURNING at_ms';

/** One more write step, inside the caller's transaction: the serial after it. */
function bumpSerial(statement: StatementSync): number | undefined {
  const row = statement.get(LEDGER_SERIAL_MARK) as { at_ms: number } | undefined;
  return row ? Number(row.at_ms) : undefined;
}

/** Gives the ledger an identity if it has none (ledger-mark.ts), inside the caller's transaction. */
function giveIdentity(db: DatabaseSync): void {
  db.prepare('INSERT INTO schedctl_ledger_marks (mark, at_ms) VALUES (?, ?) ON CONFLICT (mark) DO NOTHING').run(
    LEDGER_ID_MARK,
    newLedgerId(),
  );
}

/** Creates the file (0600) if it is not there; whether this call created it. */
function createExclusive(path: string): boolean {
  try {
    closeSync(openSync(path, 'wx', 0o600));
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    // There already: opened for writing all the same, so a directory in its place says EISDIR.
    closeSync(openSync(path, 'a', 0o600));
    return false;
  }
}

/** Whether the database at `path` is still empty (no schema, no version): nobody's migration has landed in it. */
export function unmigrated(Database: typeof DatabaseSync, path: string): boolean {
  try {
    const db = new Database(path, { readOnly: true });
    try {
      const row = db
        .prepare(
          'SELECT (SELECT user_version FROM pragma_user_version) AS v, (SELECT count(*) FROM sqlite_master) AS n',
        )
        .get() as { v: number; n: number };
      return Number(row.v) === 0 && Number(row.n) === 0;
    } finally {
      db.close();
    }
  } catch {
    return false;
  }
}
