/**
 * The SQLite ledger's write serial (issue 52 finding 4; src/state/sqlite/engine.ts and
 * ledger-mark.ts): each write transaction adds one to the `serial` row of schedctl_ledger_marks,
 * the config directory's mark (ledger-id.json) remembers the highest serial seen, and a ledger at
 * a lower serial than remembered (an older copy put back) is refused until `schedctl state
 * accept-ledger` takes it. The mark is written when the ledger closes, when the process exits, or
 * at once for a step 5 s or more after it was last written (a long-lived process): the clock is
 * set by the test (only Date is faked), nothing waits.
 */
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { FireEntry } from '../../src/state/fires.js';
import { openState } from '../../src/state/index.js';
import { StateFileError } from '../../src/state/errors.js';
import { LEDGER_DB, serialOf, SqliteLedger, type SqliteOptions } from '../../src/state/sqlite/engine.js';
import { acceptLedger } from '../../src/state/sqlite/ledger-accept.js';
import { readLedgerMark, writeLedgerMark } from '../../src/state/sqlite/ledger-mark.js';
import { SQLITE_SCHEMA_VERSION } from '../../src/state/sqlite/migrate.js';

const ALIAS = 'INSERT INTO schedctl_event_aliases (workspace, alias, event_id) VALUES (?, ?, ?)';
const T = new Date('2031-03-01T12:00:00.000Z').getTime();

const open: SqliteLedger[] = [];
const freshDir = () => mkdtempSync(join(tmpdir(), 'sqlite-serial-'));
const options: SqliteOptions = { busyMs: 2000, hasDocuments: () => false, importDocuments: undefined };
const ledgerIn = (dir: string) => {
  const l = new SqliteLedger(dir, options);
  open.push(l);
  return l;
};
afterEach(() => {
  for (const l of open.splice(0)) l.close();
  vi.useRealTimers();
});

let n = 0;
/** One write step (a transaction): one alias written. */
const write = (l: SqliteLedger) => l.transaction((tx) => tx.run(ALIAS, ['ws', `alias-${++n}`, 'event']));
/** The serial in the file, read by a connection of its own. */
function serialInFile(dir: string): number | undefined {
  const db = new DatabaseSync(join(dir, LEDGER_DB), { readOnly: true });
  try {
    return serialOf(db);
  } finally {
    db.close();
  }
}
const remembered = (dir: string) => readLedgerMark(dir)?.serial;
/** A ledger closed after `steps` write steps: its file (at serial `steps`) and its mark. */
async function made(dir: string, steps: number): Promise<void> {
  const l = new SqliteLedger(dir, options);
  for (let i = 0; i < steps; i++) await write(l);
  l.close();
}
/** The 'exit' listeners added since `before`. */
const exitListenersSince = (before: readonly unknown[]) => process.listeners('exit').filter((f) => !before.includes(f));

describe('the write serial in the file', () => {
  it('adds one per write transaction, and nothing for a read', async () => {
    const dir = freshDir();
    const l = ledgerIn(dir);
    await write(l);
    expect(serialInFile(dir)).toBe(1);
    await write(l);
    await l.step([[ALIAS, ['ws', 'last', 'event']]]);
    expect(serialInFile(dir)).toBe(3);
    expect(await l.all<{ n: number }>('SELECT count(*) AS n FROM schedctl_event_aliases')).toEqual([{ n: 3 }]);
    expect(serialInFile(dir)).toBe(3);
  });

  it('is not counted for a transaction that fails (rolled back with it)', async () => {
    const dir = freshDir();
    const l = ledgerIn(dir);
    await write(l);
    await expect(
      l.transaction(async (tx) => {
        await tx.run(ALIAS, ['ws', 'rolled-back', 'event']);
        throw new Error('the step fails');
      }),
    ).rejects.toThrow('the step fails');
    expect(serialInFile(dir)).toBe(1);
    await write(l);
    expect(serialInFile(dir)).toBe(2);
  });
});

describe('the serial the config directory remembers', () => {
  it('is written when the ledger closes, not at each step', async () => {
    const dir = freshDir();
    const l = ledgerIn(dir);
    await write(l);
    await write(l);
    // The mark written when the file was made: nothing counted then.
    expect(remembered(dir)).toBe(0);
    l.close();
    expect(remembered(dir)).toBe(2);
    expect(readLedgerMark(dir)).toEqual({
      ledgerId: expect.stringMatching(/^[0-9a-f]{12}$/),
      schemaVersion: SQLITE_SCHEMA_VERSION,
      serial: 2,
    });
  });

  it('is written when the process exits without closing the ledger: one exit listener, removed once written', async () => {
    const dir = freshDir();
    const before = process.listeners('exit');
    const l = ledgerIn(dir);
    await write(l);
    await write(l);
    const added = exitListenersSince(before);
    expect(added).toHaveLength(1);
    expect(remembered(dir)).toBe(0);
    (added[0] as () => void)();
    expect(remembered(dir)).toBe(2);
    expect(exitListenersSince(before)).toEqual([]);
    // Nothing new to remember: closing leaves the mark as it is, and no listener behind.
    l.close();
    expect(remembered(dir)).toBe(2);
    expect(exitListenersSince(before)).toEqual([]);
  });

  it('is written at once by a step 5 s or more after it was last written (a long-lived process)', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(T);
    const dir = freshDir();
    const before = process.listeners('exit');
    const l = ledgerIn(dir);
    await write(l); // the file made and marked at T
    vi.setSystemTime(T + 4_999);
    await write(l);
    expect(remembered(dir)).toBe(0);
    vi.setSystemTime(T + 5_000);
    await write(l);
    expect(remembered(dir)).toBe(3);
    expect(exitListenersSince(before)).toEqual([]);
    // Written at T + 5 s: the next 5 s count from there.
    vi.setSystemTime(T + 9_999);
    await write(l);
    expect(remembered(dir)).toBe(3);
    expect(exitListenersSince(before)).toHaveLength(1);
    l.close();
    expect(remembered(dir)).toBe(4);
    expect(exitListenersSince(before)).toEqual([]);
  });

  it('is written at once by a first step 5 s after the ledger was opened, with no exit listener to remove', async () => {
    const dir = freshDir();
    await made(dir, 1);
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(T);
    const before = process.listeners('exit');
    const l = ledgerIn(dir);
    expect(await l.all('SELECT alias FROM schedctl_event_aliases')).toHaveLength(1); // opened (and marked) at T
    vi.setSystemTime(T + 5_000);
    await write(l);
    expect(remembered(dir)).toBe(2);
    expect(exitListenersSince(before)).toEqual([]);
  });

  it('is raised to the serial in the file when it lags (a process that ended before writing it)', async () => {
    const dir = freshDir();
    await made(dir, 3);
    const mark = readLedgerMark(dir)!;
    writeLedgerMark(dir, { ...mark, serial: 1 });
    const l = ledgerIn(dir);
    expect(await l.all('SELECT alias FROM schedctl_event_aliases')).toHaveLength(3);
    expect(readLedgerMark(dir)).toEqual({ ...mark, serial: 3 });
  });

  it('is rewritten with the current schema version when the mark has an older one', async () => {
    const dir = freshDir();
    await made(dir, 2);
    const mark = readLedgerMark(dir)!;
    writeLedgerMark(dir, { ...mark, schemaVersion: SQLITE_SCHEMA_VERSION - 1 });
    const l = ledgerIn(dir);
    await l.all('SELECT 1');
    expect(readLedgerMark(dir)).toEqual({ ...mark, schemaVersion: SQLITE_SCHEMA_VERSION, serial: 2 });
  });
});

describe('an older copy of the ledger', () => {
  it('is refused, naming both serials, until accept-ledger takes it; its serial counts on from there', async () => {
    const dir = freshDir();
    await made(dir, 1);
    const backup = join(freshDir(), 'backup.db');
    copyFileSync(join(dir, LEDGER_DB), backup);
    await made(dir, 2);
    expect(remembered(dir)).toBe(3);
    // The backup put back.
    copyFileSync(backup, join(dir, LEDGER_DB));
    const refused = ledgerIn(dir);
    const error = await refused.all('SELECT 1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StateFileError);
    expect((error as Error).message).toMatch(/older copy .*at serial 1, while .*ledger-id\.json has seen it at 3/);
    await expect(write(refused)).rejects.toThrow(/older copy/);
    expect(serialInFile(dir)).toBe(1);
    expect(remembered(dir)).toBe(3);

    const { ledgerId } = readLedgerMark(dir)!;
    expect(await acceptLedger(dir)).toMatchObject({ ledgerId, serial: 1, was: { ledgerId, serial: 3 } });
    expect(remembered(dir)).toBe(1);
    const l = ledgerIn(dir);
    await write(l);
    expect(serialInFile(dir)).toBe(2);
    l.close();
    expect(readLedgerMark(dir)).toEqual({ ledgerId, schemaVersion: SQLITE_SCHEMA_VERSION, serial: 2 });
  });

  it('at the serial remembered, or later, is this ledger', async () => {
    const dir = freshDir();
    await made(dir, 2);
    const mark = readLedgerMark(dir)!;
    writeLedgerMark(dir, { ...mark, serial: 2 });
    const l = ledgerIn(dir);
    await write(l);
    l.close();
    expect(remembered(dir)).toBe(3);
  });
});

describe('a ledger made before identities were kept', () => {
  it('is given one in a step of its own, then written as usual, the identity kept', async () => {
    const dir = freshDir();
    await made(dir, 1);
    const db = new DatabaseSync(join(dir, LEDGER_DB));
    db.exec("DELETE FROM schedctl_ledger_marks WHERE mark = 'ledger-id'");
    db.close();
    rmSync(join(dir, 'ledger-id.json'));
    const l = ledgerIn(dir);
    await write(l);
    l.close();
    const { ledgerId } = readLedgerMark(dir)!;
    const check = new DatabaseSync(join(dir, LEDGER_DB), { readOnly: true });
    const row = check.prepare("SELECT at_ms FROM schedctl_ledger_marks WHERE mark = 'ledger-id'").get() as {
      at_ms: number;
    };
    check.close();
    expect(Number(row.at_ms).toString(16).padStart(12, '0')).toBe(ledgerId);
    expect(serialInFile(dir)).toBe(2);
  });

  it('is left without one, and unmarked, when the identity cannot be written; its steps still count', async () => {
    const dir = freshDir();
    await made(dir, 1);
    const db = new DatabaseSync(join(dir, LEDGER_DB));
    db.exec("DELETE FROM schedctl_ledger_marks WHERE mark = 'ledger-id'");
    // The identity's write refused (as on a file that cannot be written): its step rolled back.
    db.exec(
      "CREATE TRIGGER no_identity BEFORE INSERT ON schedctl_ledger_marks WHEN NEW.mark = 'ledger-id' BEGIN SELECT RAISE(ABORT, 'refused'); END",
    );
    db.close();
    rmSync(join(dir, 'ledger-id.json'));
    const l = ledgerIn(dir);
    await write(l);
    await write(l);
    l.close();
    expect(serialInFile(dir)).toBe(3);
    expect(readLedgerMark(dir)).toBeUndefined();
  });
});

describe('ledger documents beside a ledger that has its tables', () => {
  it('are moved in for good, records already in the tables staying as they are', async () => {
    const dir = freshDir();
    const now = () => new Date(T);
    const S = 'https://api.example.com#key:0123456789abcdef';
    const first = openState(dir, { now });
    const held = await first.fires.recordSent(
      first.fires.newEntry({ scope: S, triggerId: 't1', personEmail: 'lead@acme.example', answersKey: 'k' }),
    );
    await first.close();
    // An older schedctl wrote a fires document since: the same fire (as it saw it) and another.
    const stale: FireEntry = { ...held, state: 'prepared' };
    delete stale.sentAt;
    const other: FireEntry = { ...stale, id: 'f-from-document', personEmail: 'other@acme.example' };
    writeFileSync(join(dir, 'fires.json'), JSON.stringify({ fires: [stale, other] }));

    const said: string[] = [];
    const second = openState(dir, { now, warn: (line) => said.push(line) });
    const sql = await second.journal.ledger();
    // In an order that does not hang on the random id (one beginning `f` could sort either side).
    const rows = () =>
      sql.all<{ id: string; state: string }>('SELECT id, state FROM schedctl_fires ORDER BY state DESC');
    expect(await rows()).toEqual([
      { id: held.id, state: 'sent' },
      { id: 'f-from-document', state: 'prepared' },
    ]);
    expect(said.join('\n')).toMatch(/were moved into it/);
    // Committed: a write step follows, and a new process finds the records.
    await sql.transaction((tx) => tx.run(ALIAS, [S, 'after', 'event']));
    await second.close();
    const third = openState(dir, { now });
    expect(await (await third.journal.ledger()).all('SELECT id FROM schedctl_fires')).toHaveLength(2);
    await third.close();
  });
});
