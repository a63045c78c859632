/**
 * The SQLite engine of the local ledger on its own (src/state/sqlite/engine.ts, migrate.ts): one
 * connection per file shared by a process, reads before the first write from memory, a step's
 * transaction all or nothing, SQLite's refusals as the state's own errors naming the file, and
 * the schema's migrations (a foreign or newer file refused, documents moved in counted).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import {
  DocumentsNotMovedError,
  StateFileError,
  StateLockError,
  StateTooNewError,
  StateWriteError,
} from '../../src/state/errors.js';
import {
  LEDGER_DB,
  releaseLedger,
  SqliteLedger,
  sqliteLedger,
  unmigrated,
  type SqliteOptions,
} from '../../src/state/sqlite/engine.js';
import { DOCUMENTS_ASIDE } from '../../src/state/sqlite/documents-beside.js';
import {
  APPLICATION_ID,
  inTransaction,
  migrate,
  SQLITE_SCHEMA_VERSION,
  type MigrateOptions,
} from '../../src/state/sqlite/migrate.js';
import type { LedgerCounts } from '../../src/state/sql/documents.js';
import type { Sql } from '../../src/state/sql/types.js';

const ZERO: LedgerCounts = { journal: 0, meetings: 0, outcomes: 0, fires: 0, events: 0 };
const dirs: string[] = [];
const open: SqliteLedger[] = [];
const freshDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'sqlite-engine-'));
  dirs.push(dir);
  return dir;
};
const options = (o: Partial<SqliteOptions> = {}): SqliteOptions => ({
  busyMs: 2000,
  hasDocuments: () => false,
  importDocuments: undefined,
  ...o,
});
const ledger = (dir: string, o: Partial<SqliteOptions> = {}) => {
  const l = new SqliteLedger(dir, options(o));
  open.push(l);
  return l;
};
const rejection = async (p: Promise<unknown>): Promise<Error & { code?: string; hint?: string }> => {
  try {
    await p;
  } catch (e) {
    return e as Error & { code?: string; hint?: string };
  }
  throw new Error('expected a rejection');
};
const ALIAS = 'INSERT INTO schedctl_event_aliases (workspace, alias, event_id) VALUES (?, ?, ?)';
const ALIASES = 'SELECT alias FROM schedctl_event_aliases ORDER BY alias';

afterEach(() => {
  for (const l of open.splice(0)) l.close();
});

/**
 * Another process holding the database's write lock (BEGIN IMMEDIATE) for `ms`: SQLite's busy
 * wait blocks this thread, so the holder must not be in it. Resolves once the lock is held, with
 * a promise of the holder's end.
 */
async function holdWriteLock(path: string, ms: number): Promise<{ done: Promise<void> }> {
  const child = spawn(
    process.execPath,
    [
      '--no-warnings',
      '-e',
      `const { DatabaseSync } = require('node:sqlite');
       const db = new DatabaseSync(process.argv[1]);
       db.exec('BEGIN IMMEDIATE');
       console.log('held');
       Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Number(process.argv[2]));
       db.exec('COMMIT');`,
      path,
      String(ms),
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  await new Promise<void>((resolve, reject) => {
    child.stdout.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`the lock holder exited (${code}) before holding`)));
  });
  return { done: new Promise((resolve) => child.once('exit', () => resolve())) };
}

describe('SqliteLedger: reading, writing, transactions', () => {
  it('reads an empty ledger before the first write without creating a file; the first write makes it', async () => {
    const dir = freshDir();
    let asked = 0;
    const l = ledger(dir, {
      hasDocuments: () => (asked++, false),
      importDocuments: async () => ({ read: ZERO, written: ZERO }),
    });
    expect(await l.all('SELECT 1 AS one')).toEqual([{ one: 1 }]);
    expect(await l.all(ALIASES)).toEqual([]);
    // A read that names a write in a string is still a read.
    expect(await l.all("SELECT 'delete' AS word")).toEqual([{ word: 'delete' }]);
    expect(existsSync(join(dir, LEDGER_DB))).toBe(false);
    // The empty ledger in memory is made once (asked once whether documents are there to read).
    expect(asked).toBe(1);
    expect(await l.run(ALIAS, ['w', 'a', 'e1'])).toBe(1);
    expect(existsSync(join(dir, LEDGER_DB))).toBe(true);
    // The statement read before against memory is prepared again against the file.
    expect(await l.all(ALIASES)).toEqual([{ alias: 'a' }]);
  });

  it('takes a DELETE … RETURNING through all() as a write, even after leading space', async () => {
    const dir = freshDir();
    const l = ledger(dir);
    expect(await l.all('\n  DELETE FROM schedctl_event_aliases WHERE alias = ? RETURNING alias', ['x'])).toEqual([]);
    expect(existsSync(join(dir, LEDGER_DB))).toBe(true);
  });

  it('commits a transaction whole, and rolls one back whole when its work fails; the connection goes on', async () => {
    const l = ledger(freshDir());
    const n = await l.transaction(async (tx) => {
      await tx.run(ALIAS, ['w', 'a', 'e1']);
      // A step inside a step is part of the same transaction.
      await tx.transaction((inner) => inner.run(ALIAS, ['w', 'b', 'e2']));
      expect(await tx.all('SELECT count(*) AS n FROM schedctl_event_aliases')).toEqual([{ n: 2 }]);
      expect(await tx.all('SELECT alias FROM schedctl_event_aliases WHERE alias = ?', ['b'])).toEqual([{ alias: 'b' }]);
      return tx.run('UPDATE schedctl_event_aliases SET event_id = ?', ['e3']);
    });
    expect(n).toBe(2);
    const failure = await rejection(
      l.transaction(async (tx) => {
        await tx.run(ALIAS, ['w', 'c', 'e4']);
        throw new Error('the step failed');
      }),
    );
    expect(failure.message).toBe('the step failed');
    expect(await l.all(ALIASES)).toEqual([{ alias: 'a' }, { alias: 'b' }]);
    // Not left inside the failed transaction: the next one begins and commits.
    await l.transaction((tx) => tx.run(ALIAS, ['w', 'd', 'e5']));
    expect(await l.all(ALIASES)).toEqual([{ alias: 'a' }, { alias: 'b' }, { alias: 'd' }]);
  });

  it("answers each statement of a step: a read's rows, a write's count, RETURNING's rows; all of it lands, or none", async () => {
    const l = ledger(freshDir());
    expect(await l.step([[ALIAS, ['w', 'a', 'e1']], ['SELECT alias FROM schedctl_event_aliases']])).toEqual([
      { rows: [], changes: 1 },
      { rows: [{ alias: 'a' }], changes: 0 },
    ]);
    // In a transaction: its last statements, in the open transaction.
    const inside = await l.transaction(async (tx) => {
      expect(await tx.all(ALIASES)).toEqual([{ alias: 'a' }]);
      return tx.step([
        [ALIAS, ['w', 'b', 'e2']],
        ['UPDATE schedctl_event_aliases SET event_id = ?', ['e3']],
        ["DELETE FROM schedctl_event_aliases WHERE alias = 'a' RETURNING alias"],
      ]);
    });
    expect(inside).toEqual([
      { rows: [], changes: 1 },
      { rows: [], changes: 2 },
      { rows: [{ alias: 'a' }], changes: 1 },
    ]);
    expect(await l.all(ALIASES)).toEqual([{ alias: 'b' }]);
    // A statement that fails fails the step, which is rolled back whole.
    await expect(l.step([[ALIAS, ['w', 'c', 'e4']], ['INSERT INTO no_such_table VALUES (1)']])).rejects.toThrow(
      /no such table/,
    );
    expect(await l.all(ALIASES)).toEqual([{ alias: 'b' }]);
    // A migration's connection answers it the same way.
    const db = new DatabaseSync(':memory:');
    db.exec('CREATE TABLE t (v text)');
    const tx = inTransaction(db, 'memory');
    expect(await tx.step([['INSERT INTO t VALUES (?)', ['x']], ['SELECT v FROM t']])).toEqual([
      { rows: [], changes: 1 },
      { rows: [{ v: 'x' }], changes: 0 },
    ]);
    db.close();
  });

  it('hands a statement without parameters none (outside and inside a transaction)', async () => {
    const l = ledger(freshDir());
    expect(await l.run('DELETE FROM schedctl_event_aliases')).toBe(0);
    expect(await l.all('SELECT count(*) AS n FROM schedctl_event_aliases')).toEqual([{ n: 0 }]);
    await l.transaction(async (tx) => {
      expect(await tx.run('DELETE FROM schedctl_event_aliases')).toBe(0);
      expect(await tx.all('SELECT count(*) AS n FROM schedctl_event_aliases')).toEqual([{ n: 0 }]);
      expect(await tx.step([['SELECT count(*) AS n FROM schedctl_event_aliases']])).toEqual([
        { rows: [{ n: 0 }], changes: 0 },
      ]);
    });
  });

  it('closes without having opened anything, and twice', () => {
    const l = new SqliteLedger(freshDir(), options());
    l.close();
    l.close();
  });

  it('leaves process.emitWarning as it found it once node:sqlite is loaded', async () => {
    const before = process.emitWarning;
    await ledger(freshDir()).all('SELECT 1');
    expect(process.emitWarning).toBe(before);
  });
});

describe('sqliteLedger: one connection per file in a process', () => {
  it('shares one ledger between users of a file; the last release closes it (its write-ahead log checkpointed)', async () => {
    const dir = freshDir();
    const a = sqliteLedger(dir, options());
    const b = sqliteLedger(dir, options());
    expect(b).toBe(a);
    await a.run(ALIAS, ['w', 'a', 'e1']);
    expect(existsSync(join(dir, `${LEDGER_DB}-wal`))).toBe(true);
    releaseLedger(a);
    // Still open for its other user.
    expect(sqliteLedger(dir, options())).toBe(b);
    releaseLedger(b);
    expect(existsSync(join(dir, `${LEDGER_DB}-wal`))).toBe(true);
    releaseLedger(b);
    // Closed: SQLite checkpoints and removes the log with the last connection; a new user gets a new ledger.
    expect(existsSync(join(dir, `${LEDGER_DB}-wal`))).toBe(false);
    const c = sqliteLedger(dir, options());
    expect(c).not.toBe(a);
    expect(await c.all(ALIASES)).toEqual([{ alias: 'a' }]);
    releaseLedger(c);
  });

  it('closes a ledger it did not hand out when it is released', async () => {
    const dir = freshDir();
    const own = new SqliteLedger(dir, options());
    await own.run(ALIAS, ['w', 'a', 'e1']);
    const shared = sqliteLedger(dir, options());
    expect(await shared.all(ALIASES)).toEqual([{ alias: 'a' }]);
    releaseLedger(own);
    expect(existsSync(join(dir, `${LEDGER_DB}-wal`))).toBe(true);
    // The shared one is still handed out, to its one user and the next.
    expect(sqliteLedger(dir, options())).toBe(shared);
    releaseLedger(shared);
    releaseLedger(shared);
    expect(existsSync(join(dir, `${LEDGER_DB}-wal`))).toBe(false);
  });
});

describe("SQLite's refusals, as the state's errors naming the file", () => {
  it('waits for another process holding the write lock, up to the busy timeout', async () => {
    const dir = freshDir();
    const l = ledger(dir, { busyMs: 5000 });
    await l.run(ALIAS, ['w', 'a', 'e1']);
    const other = await holdWriteLock(join(dir, LEDGER_DB), 300);
    await l.run(ALIAS, ['w', 'b', 'e2']);
    await other.done;
    expect(await l.all(ALIASES)).toEqual([{ alias: 'a' }, { alias: 'b' }]);
  });

  it('a BUSY answered before the busy timeout is tried again until it has passed (a statement, and BEGIN)', async () => {
    const dir = freshDir();
    const l = ledger(dir, { busyMs: 5000 });
    await l.run(ALIAS, ['w', 'a', 'e1']);
    // SQLite itself waits only 10 ms now: what waits the rest is the ledger's own retry.
    await l.all('PRAGMA busy_timeout = 10');
    let other = await holdWriteLock(join(dir, LEDGER_DB), 300);
    const started = Date.now();
    await l.run(ALIAS, ['w', 'b', 'e2']);
    expect(Date.now() - started).toBeGreaterThanOrEqual(200);
    await other.done;
    other = await holdWriteLock(join(dir, LEDGER_DB), 300);
    await l.transaction((tx) => tx.run(ALIAS, ['w', 'c', 'e3']));
    await other.done;
    expect(await l.all(ALIASES)).toEqual([{ alias: 'a' }, { alias: 'b' }, { alias: 'c' }]);
  });

  it('a write lock held past the busy timeout: STATE_LOCK naming the database; nothing written', async () => {
    const dir = freshDir();
    const path = join(dir, LEDGER_DB);
    const l = ledger(dir, { busyMs: 100 });
    await l.run(ALIAS, ['w', 'a', 'e1']);
    const other = await holdWriteLock(path, 600);
    const e = await rejection(l.run(ALIAS, ['w', 'b', 'e2']));
    expect(e).toBeInstanceOf(StateLockError);
    expect(e.message).toBe(
      `another process has held the ledger database ${path} in a write for too long (a schedctl that hangs?): nothing was written; end it, or run this again once it has finished`,
    );
    await other.done;
    expect(await l.all(ALIASES)).toEqual([{ alias: 'a' }]);
  });

  it('a full database: STATE_WRITE naming the file, with the disk-full hint', async () => {
    const dir = freshDir();
    const l = ledger(dir);
    await l.run(ALIAS, ['w', 'a', 'e1']);
    const pages = Number(Object.values((await l.all<object>('PRAGMA page_count'))[0] ?? {})[0]);
    await l.all(`PRAGMA max_page_count = ${pages}`);
    const e = await rejection(
      l.transaction(async (tx) => {
        for (let i = 0; i < 200; i++) await tx.run(ALIAS, ['w', `big${i}`, 'x'.repeat(2000)]);
      }),
    );
    expect(e).toBeInstanceOf(StateWriteError);
    expect(e.message).toMatch(
      new RegExp(`^cannot write ${join(dir, LEDGER_DB)} \\(ENOSPC: .*full.*\\): nothing was saved$`),
    );
    expect(e.hint).toBe('the disk is full: free some space and run the command again');
    expect(await l.all(ALIASES)).toEqual([{ alias: 'a' }]);
  });

  it('a database that may not be written: STATE_WRITE naming the file, with the permissions hint', async () => {
    const dir = freshDir();
    const l = ledger(dir);
    await l.run(ALIAS, ['w', 'a', 'e1']);
    await l.all('PRAGMA query_only = 1');
    const e = await rejection(l.run(ALIAS, ['w', 'b', 'e2']));
    expect(e).toBeInstanceOf(StateWriteError);
    expect(e.message).toMatch(
      new RegExp(`^cannot write ${join(dir, LEDGER_DB)} \\(EACCES: .*readonly.*\\): nothing was saved$`),
    );
    expect(e.hint).toBe('make the directory writable by you, or point SCHEDCTL_CONFIG_DIR at one that is');
  });

  it('a file that cannot be opened as the database (a directory in its place): STATE_WRITE naming it', async () => {
    const dir = freshDir();
    mkdirSync(join(dir, LEDGER_DB));
    const e = await rejection(ledger(dir).run(ALIAS, ['w', 'a', 'e1']));
    expect(e).toBeInstanceOf(StateWriteError);
    expect(e.message).toMatch(new RegExp(`^cannot write ${join(dir, LEDGER_DB)} \\(EISDIR`));
  });

  it('a file that is not a database: STATE_FILE naming it; nothing of it left behind by a failed first open', async () => {
    const dir = freshDir();
    writeFileSync(join(dir, LEDGER_DB), 'not a database, just text'.repeat(200));
    const e = await rejection(ledger(dir).run(ALIAS, ['w', 'a', 'e1']));
    expect(e).toBeInstanceOf(StateFileError);
    expect(e.message).toBe(
      `${join(dir, LEDGER_DB)} is not a readable schedctl ledger database file (file is not a database): it was not changed; restore it from a backup, or move it aside to start an empty ledger (its meetings and attempts then no longer keep a lead from a second booking)`,
    );
  });

  it("passes on what is not SQLite's or the disk's refusal: a bug in the statement stays itself", async () => {
    const l = ledger(freshDir());
    const syntax = await rejection(l.all('SELEC nothing'));
    expect(syntax).not.toHaveProperty('exitCode');
    expect(syntax.message).toMatch(/syntax error/);
    const binding = await rejection(l.all('SELECT ? AS x', [Symbol('x') as never]));
    expect(binding).not.toHaveProperty('exitCode');
    expect(binding.code).toMatch(/^ERR_/);
  });

  it('a first write that cannot make the database leaves no file behind (the next run starts over)', async () => {
    const dir = freshDir();
    const e = await rejection(
      ledger(dir, {
        hasDocuments: () => true,
        importDocuments: async () => {
          throw new StateFileError(join(dir, 'journal.json'), 'journal', 'damaged');
        },
      }).run(ALIAS, ['w', 'a', 'e1']),
    );
    expect(e).toBeInstanceOf(StateFileError);
    expect(readdirSync(dir)).toEqual([]);
    // An error of no file and no SQLite code is passed on as it is.
    const plain = new Error('the import failed');
    const passed = await rejection(
      ledger(dir, {
        hasDocuments: () => true,
        importDocuments: async () => {
          throw plain;
        },
      }).run(ALIAS, ['w', 'a', 'e1']),
    );
    expect(passed).toBe(plain);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('leaves an empty database file it did not create where it was when its first write fails', async () => {
    const dir = freshDir();
    // Made by another process a moment ago (which may be filling it now).
    writeFileSync(join(dir, LEDGER_DB), '');
    const e = await rejection(
      ledger(dir, {
        hasDocuments: () => true,
        importDocuments: async () => {
          throw new StateFileError(join(dir, 'journal.json'), 'journal', 'damaged');
        },
      }).run(ALIAS, ['w', 'a', 'e1']),
    );
    expect(e).toBeInstanceOf(StateFileError);
    expect(existsSync(join(dir, LEDGER_DB))).toBe(true);
  });
});

describe('migrate: the schema, and the documents moved in', () => {
  const file = (dir = freshDir()) => {
    const path = join(dir, LEDGER_DB);
    const db = new DatabaseSync(path);
    return { dir, path, db };
  };
  const opts = (o: Partial<MigrateOptions> = {}): MigrateOptions => ({
    busyMs: 1234,
    hasDocuments: () => false,
    importDocuments: undefined,
    ...o,
  });
  const pragma = (db: DatabaseSync, name: string) => Object.values(db.prepare(`PRAGMA ${name}`).get() ?? {})[0];

  it('makes an empty file current: the busy timeout, WAL, the application id and the version', async () => {
    const { db, path } = file();
    await migrate(db, path, opts());
    expect(pragma(db, 'busy_timeout')).toBe(1234);
    expect(pragma(db, 'journal_mode')).toBe('wal');
    expect(pragma(db, 'application_id')).toBe(APPLICATION_ID);
    expect(pragma(db, 'user_version')).toBe(SQLITE_SCHEMA_VERSION);
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'schedctl_attempts'").get()).toEqual({
      name: 'schedctl_attempts',
    });
    db.close();
  });

  it('leaves a current file alone: no write, so another process holding the write lock does not matter', async () => {
    const { db, path } = file();
    await migrate(db, path, opts());
    db.close();
    const other = await holdWriteLock(path, 300);
    const again = new DatabaseSync(path);
    await migrate(again, path, opts({ busyMs: 0 }));
    expect(pragma(again, 'busy_timeout')).toBe(0);
    again.close();
    await other.done;
  });

  it.each([
    ['tables of its own', (db: DatabaseSync) => db.exec('CREATE TABLE notes (body text)')],
    ['a version of its own', (db: DatabaseSync) => db.exec('PRAGMA user_version = 7')],
    ['an application id of its own', (db: DatabaseSync) => db.exec('PRAGMA application_id = 1234')],
  ])("refuses another program's database (%s), naming it; nothing changed", async (_what, make) => {
    const { db, path } = file();
    make(db);
    const e = await rejection(migrate(db, path, opts()));
    expect(e).toBeInstanceOf(StateFileError);
    expect(e.message).toBe(
      `${path} is not a readable schedctl ledger database file (it is a SQLite database of another program): it was not changed; move it aside (it is not schedctl's) and schedctl creates its own`,
    );
    expect(db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name LIKE 'schedctl_%'").get()).toEqual({ n: 0 });
    db.close();
  });

  it('refuses a newer schedctl’s file, naming both versions', async () => {
    const { db, path } = file();
    db.exec(`PRAGMA application_id = ${APPLICATION_ID}; PRAGMA user_version = ${SQLITE_SCHEMA_VERSION + 1}`);
    const e = await rejection(migrate(db, path, opts()));
    expect(e).toBeInstanceOf(StateTooNewError);
    db.close();
  });

  it('moves the documents in through the migration’s own transaction, puts them aside and says where', async () => {
    const { dir, db, path } = file();
    writeFileSync(join(dir, 'journal.json'), '{}');
    writeFileSync(join(dir, 'events.json'), '{}');
    const said: string[] = [];
    await migrate(
      db,
      path,
      opts({
        hasDocuments: () => true,
        warn: (line) => said.push(line),
        importDocuments: async (sql: Sql) => {
          await sql.run(ALIAS, ['w', 'a', 'e1']);
          await sql.transaction((tx) => tx.run(ALIAS, ['w', 'b', 'e2']));
          expect(await sql.run('DELETE FROM schedctl_fires')).toBe(0);
          expect(await sql.all(ALIASES)).toEqual([{ alias: 'a' }, { alias: 'b' }]);
          expect(await sql.all('SELECT count(*) AS n FROM schedctl_fires')).toEqual([{ n: 0 }]);
          expect(await sql.all('SELECT count(*) AS n FROM schedctl_fires')).toEqual([{ n: 0 }]);
          expect(await sql.all('SELECT alias FROM schedctl_event_aliases WHERE alias = ?', ['b'])).toEqual([
            { alias: 'b' },
          ]);
          return { read: { ...ZERO, events: 2 }, written: { ...ZERO, events: 2 } };
        },
      }),
    );
    expect(db.prepare(ALIASES).all()).toEqual([{ alias: 'a' }, { alias: 'b' }]);
    expect(readdirSync(join(dir, DOCUMENTS_ASIDE)).sort()).toEqual(['events.json', 'journal.json']);
    expect(said).toEqual([
      `note: the ledger moved into ${path}; its former files (journal.json, events.json) are kept in ${join(dir, DOCUMENTS_ASIDE)}`,
    ]);
    db.close();
  });

  it('moves nothing in, and says nothing, when told there are documents but none could be moved', async () => {
    const { dir, db, path } = file();
    const said: string[] = [];
    await migrate(
      db,
      path,
      opts({
        hasDocuments: () => true,
        warn: (line) => said.push(line),
        importDocuments: async () => ({ read: ZERO, written: ZERO }),
      }),
    );
    expect(said).toEqual([]);
    expect(existsSync(join(dir, DOCUMENTS_ASIDE))).toBe(false);
    db.close();
  });

  it('leaves the documents where they are when there is nothing to move them with, or nothing to move', async () => {
    const { dir, db, path } = file();
    writeFileSync(join(dir, 'journal.json'), '{}');
    let imported = 0;
    await migrate(db, path, opts({ hasDocuments: () => true, importDocuments: undefined }));
    expect(readdirSync(dir)).toContain('journal.json');
    db.close();
    const second = file();
    writeFileSync(join(second.dir, 'journal.json'), '{}');
    await migrate(
      second.db,
      second.path,
      opts({ hasDocuments: () => false, importDocuments: async () => (imported++, { read: ZERO, written: ZERO }) }),
    );
    expect(imported).toBe(0);
    expect(readdirSync(second.dir)).toContain('journal.json');
    second.db.close();
  });

  it('refuses a move that lost a record: STATE_FILE naming the count; the schema not set, the files kept', async () => {
    const { dir, db, path } = file();
    writeFileSync(join(dir, 'journal.json'), '{}');
    const e = await rejection(
      migrate(
        db,
        path,
        opts({
          hasDocuments: () => true,
          importDocuments: async (sql) => {
            await sql.run(ALIAS, ['w', 'a', 'e1']);
            return { read: { ...ZERO, journal: 2 }, written: { ...ZERO, journal: 1 } };
          },
        }),
      ),
    );
    expect(e).toBeInstanceOf(DocumentsNotMovedError);
    expect(e.code).toBe('STATE_FILE');
    expect(e.message).toBe(
      `moving the ledger documents into ${path} failed (wrote 1 of 2 journal records): none was moved; they stay where they were`,
    );
    expect(e.hint).toMatch(/^run the command again/);
    // All rolled back, and not left in a transaction.
    expect(pragma(db, 'user_version')).toBe(0);
    expect(db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name LIKE 'schedctl_%'").get()).toEqual({ n: 0 });
    expect(db.isTransaction).toBe(false);
    expect(readdirSync(dir)).toContain('journal.json');
    db.close();
  });
});

describe('unmigrated: whether a database is still as made (nobody has migrated it)', () => {
  const at = (make?: (db: DatabaseSync) => void) => {
    const path = join(freshDir(), LEDGER_DB);
    if (make) {
      const db = new DatabaseSync(path);
      make(db);
      db.close();
    } else writeFileSync(path, '');
    return path;
  };
  it('is for an empty file, and not once a schema, a version or anything else is there', () => {
    expect(unmigrated(DatabaseSync, at())).toBe(true);
    expect(
      unmigrated(
        DatabaseSync,
        at((db) => db.exec('CREATE TABLE t (x)')),
      ),
    ).toBe(false);
    expect(
      unmigrated(
        DatabaseSync,
        at((db) => db.exec('PRAGMA user_version = 1')),
      ),
    ).toBe(false);
    expect(unmigrated(DatabaseSync, join(freshDir(), 'missing.db'))).toBe(false);
    const text = join(freshDir(), LEDGER_DB);
    writeFileSync(text, 'not a database, just text'.repeat(200));
    expect(unmigrated(DatabaseSync, text)).toBe(false);
  });
});

describe('SqliteLedger: one wait per lock held, not one per step', () => {
  it('steps refused one after another share one busy timeout; a step that gets through restores it', async () => {
    const dir = freshDir();
    const l = ledger(dir, { busyMs: 400 });
    await l.run(ALIAS, ['w', 'a', 'e']);
    l.close();
    expect(l.remainingMs()).toBe(400);
    // Another process holding the file in EXCLUSIVE locking mode: readers wait too.
    const child = spawn(
      process.execPath,
      [
        '--no-warnings',
        '-e',
        `const { DatabaseSync } = require('node:sqlite');
         const db = new DatabaseSync(process.argv[1]);
         db.exec("PRAGMA locking_mode=EXCLUSIVE; BEGIN EXCLUSIVE; UPDATE schedctl_ledger_marks SET at_ms = at_ms");
         console.log('held');
         process.stdin.once('data', () => { db.exec('COMMIT'); db.close(); process.exit(0); });`,
        join(dir, 'ledger.db'),
      ],
      { stdio: ['pipe', 'pipe', 'inherit'] },
    );
    await new Promise<void>((resolve) => child.stdout!.once('data', () => resolve()));
    const reader = ledger(dir, { busyMs: 400 });
    for (let i = 0; i < 3; i++) expect((await rejection(reader.all(ALIASES))).code).toBe('STATE_LOCK');
    // The first waited the whole 400 ms; the two after it had nothing left to wait.
    expect(reader.remainingMs()).toBe(0);
    child.stdin!.write('go\n');
    await new Promise((resolve) => child.once('exit', resolve));
    expect(await reader.all(ALIASES)).toEqual([{ alias: 'a' }]);
    expect(reader.remainingMs()).toBe(400);
  });
});
