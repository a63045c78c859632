/**
 * The SQLite engine's paths the other engine tests leave open (src/state/sqlite/engine.ts): a
 * command that only reads a ledger file it cannot write (opened read-only, and as an immutable
 * file when not even its -shm file can be made), what such a file may not be (emptied, another
 * ledger, missing a table, of an older schema, with documents beside it), and the write that
 * follows such reads. Tests run as root, where a mode cannot refuse a write: the file (and
 * directory) are made immutable (chattr +i), which refuses root too; where the file system
 * cannot, those tests are skipped.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { StateFileError, StateLockError, StateWriteError } from '../../src/state/errors.js';
import { LEDGER_DB, SqliteLedger, type SqliteOptions } from '../../src/state/sqlite/engine.js';
import { DOCUMENT_FILES } from '../../src/state/sqlite/documents-beside.js';
import { readLedgerMark } from '../../src/state/sqlite/ledger-mark.js';

const ALIAS = 'INSERT INTO schedctl_event_aliases (workspace, alias, event_id) VALUES (?, ?, ?)';
const ALIASES = 'SELECT alias FROM schedctl_event_aliases ORDER BY alias';

const open: SqliteLedger[] = [];
const frozen: string[] = [];
const freshDir = () => mkdtempSync(join(tmpdir(), 'sqlite-engine-mutants-'));
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

/** Makes `path` immutable: not even root may write it (or, a directory, add a file to it). */
function freeze(path: string): void {
  execFileSync('chattr', ['+i', path], { stdio: 'ignore' });
  frozen.push(path);
}

/** Whether this machine can make a file immutable (root, a file system with the attribute). */
const canFreeze = (() => {
  const dir = freshDir();
  const probe = join(dir, 'probe');
  writeFileSync(probe, '');
  try {
    execFileSync('chattr', ['+i', probe], { stdio: 'ignore' });
  } catch {
    return false;
  }
  try {
    writeFileSync(probe, 'x');
    return false;
  } catch {
    return true;
  } finally {
    execFileSync('chattr', ['-i', probe], { stdio: 'ignore' });
    rmSync(dir, { recursive: true, force: true });
  }
})();

afterEach(() => {
  for (const l of open.splice(0)) l.close();
  for (const path of frozen.splice(0).reverse()) execFileSync('chattr', ['-i', path], { stdio: 'ignore' });
});

/** A ledger made by a write: its file (one alias in it), mark and stand-ins; closed (no -wal, no -shm left). */
async function made(dir: string): Promise<void> {
  const l = new SqliteLedger(dir, options());
  await l.run(ALIAS, ['w', 'a', 'e1']);
  l.close();
}

describe.skipIf(!canFreeze)('a ledger file this process cannot write, read by a command that only reads', () => {
  it('is read as it is (opened read-only), again without reopening; a write after it is STATE_WRITE naming the file', async () => {
    const dir = freshDir();
    await made(dir);
    freeze(join(dir, LEDGER_DB));
    const l = ledger(dir);
    expect(await l.all(ALIASES)).toEqual([{ alias: 'a' }]);
    expect(await l.all(ALIASES)).toEqual([{ alias: 'a' }]);
    const e = await rejection(l.run(ALIAS, ['w', 'b', 'e2']));
    expect(e).toBeInstanceOf(StateWriteError);
    expect(e.message).toMatch(new RegExp(`^cannot write ${join(dir, LEDGER_DB)} \\(EPERM`));
    // The read-only connection was closed for the write: the next read opens it again.
    expect(await l.all(ALIASES)).toEqual([{ alias: 'a' }]);
    const tx = await rejection(l.transaction((t) => t.run(ALIAS, ['w', 'c', 'e3'])));
    expect(tx).toBeInstanceOf(StateWriteError);
  });

  it('once writable again, the write after the reads reopens the file for writing and lands', async () => {
    const dir = freshDir();
    await made(dir);
    freeze(join(dir, LEDGER_DB));
    const l = ledger(dir);
    expect(await l.all(ALIASES)).toEqual([{ alias: 'a' }]);
    execFileSync('chattr', ['-i', join(dir, LEDGER_DB)], { stdio: 'ignore' });
    await l.run(ALIAS, ['w', 'b', 'e2']);
    expect(await l.all(ALIASES)).toEqual([{ alias: 'a' }, { alias: 'b' }]);
    l.close();
    const db = new DatabaseSync(join(dir, LEDGER_DB), { readOnly: true });
    expect(
      db
        .prepare(ALIASES)
        .all()
        .map((r) => ({ ...r })),
    ).toEqual([{ alias: 'a' }, { alias: 'b' }]);
    db.close();
  });

  it('read from memory while there was no file, then from the file another process made (opened read-only)', async () => {
    const dir = freshDir();
    const l = ledger(dir);
    expect(await l.all(ALIASES)).toEqual([]);
    await made(dir);
    freeze(join(dir, LEDGER_DB));
    // The statement prepared on the empty ledger in memory is not the file's.
    expect(await l.all(ALIASES)).toEqual([{ alias: 'a' }]);
  });

  it('the connection opened for writing after read-only reads is taken for a writable one from then on', async () => {
    const dir = freshDir();
    await made(dir);
    freeze(join(dir, LEDGER_DB));
    const l = ledger(dir, { busyMs: 1500 });
    expect(await l.all(ALIASES)).toEqual([{ alias: 'a' }]);
    execFileSync('chattr', ['-i', join(dir, LEDGER_DB)], { stdio: 'ignore' });
    await l.run(ALIAS, ['w', 'b', 'e2']);
    await l.run('PRAGMA busy_timeout = 10');
    // A write now runs on that connection: not opened again (which would set the busy timeout anew).
    await l.run(ALIAS, ['w', 'c', 'e3']);
    expect(Object.values((await l.all<object>('PRAGMA busy_timeout'))[0] ?? {})[0]).toBe(10);
  });

  it('opened read-only with the busy timeout set, and nothing written beside it (no stand-in, no mark)', async () => {
    const dir = freshDir();
    await made(dir);
    const standIn = join(dir, DOCUMENT_FILES[1]!);
    rmSync(standIn);
    freeze(join(dir, LEDGER_DB));
    const l = ledger(dir, { busyMs: 1500 });
    expect(Object.values((await l.all<object>('PRAGMA busy_timeout'))[0] ?? {})[0]).toBe(1500);
    expect(await l.all(ALIASES)).toEqual([{ alias: 'a' }]);
    expect(existsSync(standIn)).toBe(false);
  });

  it('in a directory where not even its -shm file can be made: read as an immutable file', async () => {
    const dir = freshDir();
    await made(dir);
    freeze(join(dir, LEDGER_DB));
    freeze(dir);
    const l = ledger(dir);
    expect(await l.all(ALIASES)).toEqual([{ alias: 'a' }]);
    expect(await l.all(ALIASES)).toEqual([{ alias: 'a' }]);
  });

  it('an emptied (0-byte) file where a ledger was marked: refused as emptied, naming it', async () => {
    const dir = freshDir();
    await made(dir);
    writeFileSync(join(dir, LEDGER_DB), '');
    freeze(join(dir, LEDGER_DB));
    const e = await rejection(ledger(dir).all(ALIASES));
    expect(e).toBeInstanceOf(StateFileError);
    expect(e.message).toContain(
      `${join(dir, LEDGER_DB)} is not a readable schedctl ledger database file (it is empty: `,
    );
  });

  it('an empty file with no ledger marked here: the refusal to write it, not an emptied ledger', async () => {
    const dir = freshDir();
    writeFileSync(join(dir, LEDGER_DB), '');
    freeze(join(dir, LEDGER_DB));
    const e = await rejection(ledger(dir).all(ALIASES));
    expect(e).toBeInstanceOf(StateWriteError);
    expect(e.message).toMatch(new RegExp(`^cannot write ${join(dir, LEDGER_DB)} \\(EPERM`));
  });

  it('a file of an older schema (it needs a migration, a write): the refusal to write it', async () => {
    const dir = freshDir();
    await made(dir);
    const db = new DatabaseSync(join(dir, LEDGER_DB));
    db.exec('PRAGMA user_version = 2');
    db.close();
    freeze(join(dir, LEDGER_DB));
    const e = await rejection(ledger(dir).all(ALIASES));
    expect(e).toBeInstanceOf(StateWriteError);
  });

  it('ledger documents beside it (to move in, a write): the refusal to write it', async () => {
    const dir = freshDir();
    await made(dir);
    writeFileSync(join(dir, DOCUMENT_FILES[0]!), '{}');
    freeze(join(dir, LEDGER_DB));
    const e = await rejection(ledger(dir).all(ALIASES));
    expect(e).toBeInstanceOf(StateWriteError);
  });

  it("another config directory's ledger in its place: refused, naming its id", async () => {
    const mine = freshDir();
    const theirs = freshDir();
    await made(mine);
    await made(theirs);
    writeFileSync(join(mine, LEDGER_DB), readFileSync(join(theirs, LEDGER_DB)));
    freeze(join(mine, LEDGER_DB));
    const e = await rejection(ledger(mine).all(ALIASES));
    expect(e).toBeInstanceOf(StateFileError);
    expect(e.message).toContain(`(it is another ledger (id ${readLedgerMark(theirs)!.ledgerId}`);
  });

  it('a file missing a table: STATE_FILE naming the table', async () => {
    const dir = freshDir();
    await made(dir);
    const db = new DatabaseSync(join(dir, LEDGER_DB));
    db.exec('DROP TABLE schedctl_meetings');
    db.close();
    freeze(join(dir, LEDGER_DB));
    const e = await rejection(ledger(dir).all(ALIASES));
    expect(e).toBeInstanceOf(StateFileError);
    expect(e.message).toContain('(its table schedctl_meetings is missing)');
  });

  it('a file that is not a database: STATE_FILE naming it, not the refusal to write it', async () => {
    const dir = freshDir();
    writeFileSync(join(dir, LEDGER_DB), 'not a database, just text'.repeat(200));
    freeze(join(dir, LEDGER_DB));
    const e = await rejection(ledger(dir).all(ALIASES));
    expect(e).toBeInstanceOf(StateFileError);
    expect(e.message).toContain('(file is not a database)');
  });
});

describe('loading node:sqlite (loadSqlite)', () => {
  it("drops only SQLite's warnings while it loads, passing the others on as they were given; loads once", async () => {
    // A fresh copy of the module: node:sqlite not loaded yet in it.
    vi.resetModules();
    const { loadSqlite } = await import('../../src/state/sqlite/engine.js');
    const original = process.emitWarning;
    const seen: unknown[][] = [];
    process.emitWarning = ((...given: unknown[]) => void seen.push(given)) as typeof process.emitWarning;
    const other = new Error('another thing');
    try {
      const loading = loadSqlite();
      // Emitted while the import is under way (the load has replaced emitWarning by then).
      process.emitWarning('SQLite is an experimental feature', 'ExperimentalWarning');
      process.emitWarning(new Error('the sqlite module is experimental'));
      process.emitWarning('something else', 'Warning', 'CODE1');
      process.emitWarning(other);
      const first = await loading;
      const again = loadSqlite();
      // Loaded already: nothing is replaced, a SQLite warning now passes like any other.
      process.emitWarning('SQLite after the load');
      expect(await again).toBe(first);
      expect(typeof first.DatabaseSync).toBe('function');
    } finally {
      process.emitWarning = original;
    }
    expect(seen).toEqual([['something else', 'Warning', 'CODE1'], [other], ['SQLite after the load']]);
  });
});

describe("the busy timeout on the open connection (SQLite's own wait)", () => {
  const NONE = { journal: 0, meetings: 0, outcomes: 0, fires: 0, events: 0 };
  const busyTimeout = async (l: SqliteLedger) =>
    Object.values((await l.all<object>('PRAGMA busy_timeout'))[0] ?? {})[0];

  it('is the busy timeout, rounded, once the file is open', async () => {
    const l = ledger(freshDir(), { busyMs: 1234.4 });
    await l.run(ALIAS, ['w', 'a', 'e1']);
    expect(await busyTimeout(l)).toBe(1234);
  });

  it('is set once per connection, not again before every step: one set on the connection stays', async () => {
    const dir = freshDir();
    const l = ledger(dir, { busyMs: 1500 });
    // The first step opens the file (the busy timeout set as it is made) and changes the wait.
    await l.run('PRAGMA busy_timeout = 10');
    expect(await busyTimeout(l)).toBe(10);
    await l.run(ALIAS, ['w', 'a', 'e1']);
    expect(await busyTimeout(l)).toBe(10);
    // A connection opened again gets it anew.
    l.close();
    expect(await busyTimeout(l)).toBe(1500);
    await l.run('PRAGMA busy_timeout = 20');
    await l.transaction((tx) => tx.run(ALIAS, ['w', 'b', 'e2']));
    expect(await busyTimeout(l)).toBe(20);
  });

  it('after a lock waited out to the end, the next step has no wait left; the step after it gets the whole wait again', async () => {
    const dir = freshDir();
    let locked = true;
    const l = ledger(dir, {
      busyMs: 300,
      hasDocuments: () => true,
      importDocuments: async () => {
        if (locked) throw { errcode: 5, errstr: 'database is locked' };
        return { read: NONE, written: NONE };
      },
    });
    expect(await rejection(l.run(ALIAS, ['w', 'a', 'e1']))).toBeInstanceOf(StateLockError);
    expect(l.remainingMs()).toBe(0);
    locked = false;
    // Opened (and migrated) with what was left of the wait: nothing.
    expect(await busyTimeout(l)).toBe(0);
    expect(l.remainingMs()).toBe(300);
    expect(await busyTimeout(l)).toBe(300);
  });

  it.skipIf(!canFreeze)('a connection closed after read-only reads opens for writing as a writable one', async () => {
    const dir = freshDir();
    await made(dir);
    freeze(join(dir, LEDGER_DB));
    const l = ledger(dir, { busyMs: 1500 });
    expect(await l.all(ALIASES)).toEqual([{ alias: 'a' }]);
    l.close();
    execFileSync('chattr', ['-i', join(dir, LEDGER_DB)], { stdio: 'ignore' });
    expect(await l.all(ALIASES)).toEqual([{ alias: 'a' }]);
    // Set by a read (which never reopens a connection).
    await l.all('PRAGMA busy_timeout = 10');
    // A write runs on that connection: not opened again (which would set the busy timeout anew).
    await l.run(ALIAS, ['w', 'b', 'e2']);
    expect(await busyTimeout(l)).toBe(10);
  });

  it('a ledger with no wait left waits not at all: never a negative timeout', async () => {
    const l = ledger(freshDir(), { busyMs: -50 });
    await l.run(ALIAS, ['w', 'a', 'e1']);
    expect(l.remainingMs()).toBe(0);
    expect(await busyTimeout(l)).toBe(0);
  });
});

describe("SQLite's result codes, as the state's errors naming the file (thrown by the first write's import)", () => {
  /** The first write's migration failing with `thrown` (through the import of documents, a seam the engine offers). */
  const firstWriteFailing = async (thrown: unknown, busyMs = 2000) => {
    const dir = freshDir();
    const e = await rejection(
      ledger(dir, {
        busyMs,
        hasDocuments: () => true,
        importDocuments: async () => {
          throw thrown;
        },
      }).run(ALIAS, ['w', 'a', 'e1']),
    );
    return { e, path: join(dir, LEDGER_DB), dir };
  };

  it.each([
    [5, 'database is locked'],
    [6, 'database table is locked'],
    [5 | (1 << 8), 'database is locked (recovery)'],
  ])('%i: STATE_LOCK; the file it made is left (another process may be filling it)', async (errcode, errstr) => {
    // A lock is waited for (tried again) up to the busy timeout: a short one.
    const { e, path } = await firstWriteFailing({ errcode, errstr }, 30);
    expect(e).toBeInstanceOf(StateLockError);
    expect(e.message).toContain(`the ledger database ${path}`);
    expect(existsSync(path)).toBe(true);
  });

  it.each([
    [26, 'file is not a database'],
    [11, 'database disk image is malformed'],
    [11 | (1 << 8), 'malformed (vtab)'],
  ])('%i: STATE_FILE naming the file and the reason', async (errcode, errstr) => {
    const { e, path } = await firstWriteFailing({ errcode, errstr });
    expect(e).toBeInstanceOf(StateFileError);
    expect(e.message).toContain(`${path} is not a readable schedctl ledger database file (${errstr})`);
  });

  it.each([
    [13, 'ENOSPC'],
    [8, 'EACCES'],
    [3, 'EACCES'],
    [14, 'EACCES'],
    [8 | (3 << 8), 'EACCES'],
    [10, 'EIO'],
    [10 | (12 << 8), 'EIO'],
  ])('%i: STATE_WRITE naming the file, as %s', async (errcode, code) => {
    const { e, path, dir } = await firstWriteFailing({ errcode, errstr: 'what SQLite said' });
    expect(e).toBeInstanceOf(StateWriteError);
    expect(e.message).toBe(`cannot write ${path} (${code}: what SQLite said): nothing was saved`);
    // Made by this run and never filled: not left behind.
    expect(existsSync(path)).toBe(false);
    expect(existsSync(dir)).toBe(true);
  });

  it('the reason is the message when SQLite gave no errstr, and said so when neither', async () => {
    expect((await firstWriteFailing({ errcode: 26, message: 'its message' })).e.message).toContain('(its message)');
    expect((await firstWriteFailing({ errcode: 26 })).e.message).toContain('(unknown error)');
  });

  it('any other result code is passed on as it is, and so is a file system error of no code or an ERR_ code', async () => {
    for (const thrown of [
      { errcode: 1, errstr: 'SQL logic error' },
      { errcode: 19, errstr: 'constraint failed' },
      Object.assign(new Error('a bug'), { code: 'ERR_INVALID_ARG_TYPE' }),
      Object.assign(new Error('no code'), { code: 42 }),
    ])
      expect((await firstWriteFailing(thrown)).e).toBe(thrown);
  });

  it('a file system refusal (a code not ERR_): STATE_WRITE naming the file', async () => {
    const { e, path } = await firstWriteFailing(Object.assign(new Error('no space left'), { code: 'ENOSPC' }));
    expect(e).toBeInstanceOf(StateWriteError);
    expect(e.message).toBe(`cannot write ${path} (ENOSPC: no space left): nothing was saved`);
  });
});

describe('the ledger in memory before the first write, and documents beside a file with nothing to move them', () => {
  const NONE = { journal: 0, meetings: 0, outcomes: 0, fires: 0, events: 0 };

  it('is made once and read again; one that could not be made is made again by the next read', async () => {
    const dir = freshDir();
    let imports = 0;
    const l = ledger(dir, {
      hasDocuments: () => true,
      importDocuments: async () => {
        if (++imports === 1) throw new StateFileError(join(dir, 'journal.json'), 'journal', 'damaged');
        return { read: NONE, written: NONE };
      },
    });
    expect(await rejection(l.all(ALIASES))).toBeInstanceOf(StateFileError);
    expect(await l.all(ALIASES)).toEqual([]);
    expect(await l.all(ALIASES)).toEqual([]);
    expect(imports).toBe(2);
    expect(existsSync(join(dir, LEDGER_DB))).toBe(false);
  });

  it('documents beside a ledger file are left where they are when there is nothing to move them with', async () => {
    const dir = freshDir();
    await made(dir);
    const beside = join(dir, DOCUMENT_FILES[0]!);
    writeFileSync(beside, '{}');
    const l = ledger(dir);
    expect(await l.all(ALIASES)).toEqual([{ alias: 'a' }]);
    await l.run(ALIAS, ['w', 'b', 'e2']);
    expect(readFileSync(beside, 'utf8')).toBe('{}');
  });
});

describe('the first write', () => {
  it('makes the config directory the ledger is in when it is not there yet', async () => {
    const dir = join(freshDir(), 'config', 'schedctl');
    const l = ledger(dir);
    await l.run(ALIAS, ['w', 'a', 'e1']);
    expect(await l.all(ALIASES)).toEqual([{ alias: 'a' }]);
    expect(existsSync(join(dir, LEDGER_DB))).toBe(true);
  });
});
