/**
 * A ledger that was there stays there, and versions cannot pass each other (issue 44, 1 and 2):
 * the ledger's mark outside the file (sqlite/ledger-mark.ts), the stand-ins an older schedctl
 * refuses and the documents moved in whenever they appear (sqlite/documents-beside.ts), through
 * the store (state/index.ts) on real files.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { StateFileError } from '../../src/state/errors.js';
import { EVENTS_FILE, FIRES_FILE, JOURNAL_FILE, MEETINGS_FILE, OUTCOMES_FILE } from '../../src/state/files.js';
import { openState } from '../../src/state/index.js';
import { parseStateText, type FileKind } from '../../src/state/json-file.js';
import { legacyMark } from '../../src/state/legacy-records.js';
import { leadRecord } from '../../src/state/ledger.js';
import { countDocuments, countTables, type LedgerDocuments } from '../../src/state/sql/documents.js';
import {
  DOCUMENT_FILES,
  documentsBeside,
  isStandIn,
  placeStandIns,
  putDocumentsAside,
  standInsInPlace,
  standInText,
} from '../../src/state/sqlite/documents-beside.js';
import {
  formatLedgerId,
  LEDGER_MARK_FILE,
  newLedgerId,
  parseMark,
  readLedgerMark,
  refusal,
  writeLedgerMark,
} from '../../src/state/sqlite/ledger-mark.js';
import { decide } from '../../src/domain/lead-rule.js';
import { documents, FILE_OF, LEGACY, NOW, WS } from '../helpers/ledger-documents.js';

const tmp = (name: string) => mkdtempSync(join(tmpdir(), `${name}-`));
const open = (dir: string, said: string[] = []) => openState(dir, { now: () => NOW, warn: (l) => said.push(l) });

/** A ledger made by a write (its file, mark and stand-ins). */
async function made(dir: string) {
  const state = open(dir);
  await state.journal.remove('none');
  await state.close();
}

async function failure(p: Promise<unknown>): Promise<StateFileError> {
  const e = await p.then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(e).toBeInstanceOf(StateFileError);
  return e as StateFileError;
}

function writeDocuments(dir: string, docs: LedgerDocuments) {
  for (const [kind, file] of Object.entries(FILE_OF))
    writeFileSync(join(dir, file), JSON.stringify(docs[kind as keyof LedgerDocuments]));
}

describe('the ledger mark (ledger-mark.ts)', () => {
  it('reads what it wrote; no mark when none was written; a damaged mark is refused, naming it', () => {
    const dir = tmp('mark');
    expect(readLedgerMark(dir)).toBeUndefined();
    writeLedgerMark(dir, { ledgerId: '00000000abcd', schemaVersion: 3 });
    expect(readLedgerMark(dir)).toEqual({ ledgerId: '00000000abcd', schemaVersion: 3 });
    writeFileSync(join(dir, LEDGER_MARK_FILE), '{"ledgerId": 12}');
    expect(() => readLedgerMark(dir)).toThrow(StateFileError);
    expect(() => readLedgerMark(dir)).toThrow(/ledger-id\.json.*state reset-ledger --yes/);
    // A mark that cannot be written (a directory in a missing one) is no error: a read-only directory keeps none.
    expect(() =>
      writeLedgerMark(join(dir, 'no', 'such'), { ledgerId: '000000000001', schemaVersion: 3 }),
    ).not.toThrow();
  });

  it('parses only a well-formed mark', () => {
    expect(parseMark('{"ledgerId":"0123456789ab","schemaVersion":3}')).toEqual({
      ledgerId: '0123456789ab',
      schemaVersion: 3,
    });
    for (const text of [
      'not json',
      'null',
      '{"ledgerId":"0123456789AB","schemaVersion":3}',
      '{"ledgerId":"0123456789a","schemaVersion":3}',
      '{"ledgerId":"0123456789abc","schemaVersion":3}',
      '{"ledgerId":"0123456789ab","schemaVersion":"3"}',
      '{"ledgerId":"0123456789ab","schemaVersion":3.5}',
      '{"schemaVersion":3}',
      '{"ledgerId":123456789012,"schemaVersion":3}',
      '{"ledgerId":"0123456789ab","schemaVersion":3,"serial":-1}',
      '{"ledgerId":"0123456789ab","schemaVersion":3,"serial":"7"}',
      '5',
      '{"ledgerId":"0123456789ab"}',
    ])
      expect(parseMark(text), text).toBeUndefined();
  });

  it('identities are 48-bit numbers, shown as 12 hex digits', () => {
    for (let i = 0; i < 50; i++) {
      const id = newLedgerId();
      expect(Number.isSafeInteger(id) && id >= 1 && id < 2 ** 48).toBe(true);
      expect(formatLedgerId(id)).toMatch(/^[0-9a-f]{12}$/);
    }
    expect(formatLedgerId(255)).toBe('0000000000ff');
  });

  it('refuses a missing, empty or other ledger where a marked one was; never without a mark', () => {
    const where = '/c/ledger.db';
    const mark = { ledgerId: '0000000000aa', schemaVersion: 3 };
    for (const found of [
      { kind: 'missing' },
      { kind: 'empty' },
      { kind: 'ledger', ledgerId: 'b', schemaVersion: 3 },
    ] as const)
      expect(refusal(where, undefined, found)).toBeUndefined();
    expect(refusal(where, mark, { kind: 'missing' })?.message).toMatch(
      /^\/c\/ledger\.db is not a readable schedctl ledger database file \(it is missing: this config directory's ledger \(id 0000000000aa, \/c\/ledger-id\.json\) was here\): restore it from a backup, or run `schedctl state reset-ledger --yes`/,
    );
    expect(refusal(where, mark, { kind: 'empty' })?.message).toContain('(it is empty: ');
    expect(refusal(where, mark, { kind: 'ledger', ledgerId: '0000000000bb', schemaVersion: 3 })?.message).toBe(
      "/c/ledger.db is not a readable schedctl ledger database file (it is another ledger (id 0000000000bb), not this config directory's ledger (id 0000000000aa, /c/ledger-id.json)): it was not changed; restore it from a backup, or run `schedctl state reset-ledger --yes` to start a new, empty ledger (its meetings and attempts then no longer keep a lead from a second booking); or, if it is the ledger to keep (copied from another config directory on purpose), run `schedctl state accept-ledger`",
    );
    expect(refusal(where, mark, { kind: 'ledger', ledgerId: '0000000000aa', schemaVersion: 3 })).toBeUndefined();
    // Issue 52 finding 4: the same ledger at a lower serial than remembered is an older copy.
    const seen = { ...mark, serial: 5 };
    expect(
      refusal(where, seen, { kind: 'ledger', ledgerId: '0000000000aa', schemaVersion: 3, serial: 4 })?.message,
    ).toMatch(
      /older copy of this config directory's ledger \(id 0000000000aa\): at serial 4, while \/c\/ledger-id.json has seen it at 5.*schedctl state accept-ledger/,
    );
    expect(
      refusal(where, seen, { kind: 'ledger', ledgerId: '0000000000aa', schemaVersion: 3, serial: 5 }),
    ).toBeUndefined();
    expect(
      refusal(where, seen, { kind: 'ledger', ledgerId: '0000000000aa', schemaVersion: 3, serial: 9 }),
    ).toBeUndefined();
    expect(refusal(where, seen, { kind: 'ledger', ledgerId: '0000000000aa', schemaVersion: 3 })?.message).toMatch(
      /at serial 0/,
    );
    // A ledger of before identities is this one.
    expect(refusal(where, mark, { kind: 'ledger', ledgerId: undefined, schemaVersion: 3 })).toBeUndefined();
    expect(refusal(where, mark, { kind: 'missing' })?.code).toBe('STATE_FILE');
  });
});

describe('stand-ins (documents-beside.ts)', () => {
  const KINDS: Record<string, FileKind<unknown>> = {
    'journal.json': JOURNAL_FILE,
    'meetings.json': MEETINGS_FILE,
    'outcomes.json': OUTCOMES_FILE,
    'fires.json': FIRES_FILE,
    'events.json': EVENTS_FILE,
  };

  it("are refused by the previous version's reading of the documents (its schemas, unchanged), naming the upgrade where the path can carry it", () => {
    for (const name of DOCUMENT_FILES) {
      const kind = KINDS[name]!;
      expect(() => parseStateText(standInText(name), kind, `/c/${name}`), name).toThrow(StateFileError);
    }
    expect(() => parseStateText(standInText('meetings.json'), MEETINGS_FILE, '/c/meetings.json')).toThrow(
      /written by a newer schedctl: this ledger moved into ledger\.db; upgrade schedctl/,
    );
    expect(() => parseStateText(standInText('journal.json'), JOURNAL_FILE, '/c/journal.json')).toThrow(
      /unexpected content at entries/,
    );
  });

  it('are told from documents; documents beside are the files there that are not stand-ins', () => {
    const dir = tmp('stand-ins');
    expect(documentsBeside(dir)).toEqual([]);
    expect(standInsInPlace(dir)).toBe(false);
    writeFileSync(join(dir, 'meetings.json'), '{"meetings":{}}');
    writeFileSync(join(dir, 'fires.json'), 'damaged');
    placeStandIns(dir);
    // Never over a document (nor a damaged one: reading it says so).
    expect(documentsBeside(dir)).toEqual(['meetings.json', 'fires.json']);
    expect(readFileSync(join(dir, 'meetings.json'), 'utf8')).toBe('{"meetings":{}}');
    for (const name of ['journal.json', 'outcomes.json', 'events.json']) expect(isStandIn(join(dir, name))).toBe(true);
    expect(isStandIn(join(dir, 'missing.json'))).toBe(false);
    writeFileSync(join(dir, 'x.json'), '{"ledgerMovedInto": 1}');
    expect(isStandIn(join(dir, 'x.json'))).toBe(false);
    writeFileSync(join(dir, 'y.json'), 'null');
    expect(isStandIn(join(dir, 'y.json'))).toBe(false);
    writeFileSync(join(dir, 'z.json'), '5');
    expect(isStandIn(join(dir, 'z.json'))).toBe(false);
    // One document among stand-ins: not all in place.
    expect(standInsInPlace(dir)).toBe(false);
    expect(JSON.parse(standInText('journal.json')).ledgerMovedInto).toBe('ledger.db');
    // Any other name: the journal's shape.
    expect(JSON.parse(standInText('other.json'))).toMatchObject({ entries: expect.any(String) });
  });

  it('put documents aside (a later one beside an earlier with the time in its name), stand-ins in their place', () => {
    const dir = tmp('aside');
    writeFileSync(join(dir, 'journal.json'), '{"entries":[]}');
    expect(putDocumentsAside(dir, 5)).toEqual({
      moved: ['journal.json'],
      aside: join(dir, 'ledger-documents-before-sqlite'),
    });
    writeFileSync(join(dir, 'journal.json'), '{"entries":[1]}');
    expect(putDocumentsAside(dir, 7).moved).toEqual(['journal.json']);
    expect(readdirSync(join(dir, 'ledger-documents-before-sqlite')).sort()).toEqual(['journal.json', 'journal.json.7']);
    expect(readFileSync(join(dir, 'ledger-documents-before-sqlite', 'journal.json.7'), 'utf8')).toBe('{"entries":[1]}');
    expect(standInsInPlace(dir)).toBe(true);
    expect(putDocumentsAside(dir, 9).moved).toEqual([]);
  });
});

describe('a ledger that was there stays there', () => {
  it('a new config directory makes its ledger silently, with its mark and stand-ins', async () => {
    const dir = tmp('new');
    const said: string[] = [];
    const state = open(dir, said);
    await state.journal.remove('none');
    await state.close();
    expect(said).toEqual([]);
    const mark = readLedgerMark(dir);
    expect(mark).toEqual({
      ledgerId: expect.stringMatching(/^[0-9a-f]{12}$/),
      schemaVersion: 3,
      serial: expect.any(Number),
    });
    const db = new DatabaseSync(join(dir, 'ledger.db'), { readOnly: true });
    const row = db.prepare("SELECT at_ms FROM schedctl_ledger_marks WHERE mark = 'ledger-id'").get() as {
      at_ms: number;
    };
    db.close();
    expect(formatLedgerId(Number(row.at_ms))).toBe(mark!.ledgerId);
    expect(standInsInPlace(dir)).toBe(true);
  });

  it('an emptied (0-byte) ledger.db is refused, reads and writes alike, naming it and what to do; it is left as it is', async () => {
    const dir = tmp('emptied');
    await made(dir);
    writeFileSync(join(dir, 'ledger.db'), '');
    for (const f of ['ledger.db-wal', 'ledger.db-shm']) rmSync(join(dir, f), { force: true });
    const state = open(dir);
    const read = await failure(state.meetings.list(WS));
    expect(read.message).toContain(
      `${join(dir, 'ledger.db')} is not a readable schedctl ledger database file (it is empty`,
    );
    expect(read.message).toContain('schedctl state reset-ledger --yes');
    const write = await failure(state.journal.remove('none'));
    expect(write.code).toBe('STATE_FILE');
    await state.close();
    expect(statSync(join(dir, 'ledger.db')).size).toBe(0);
  });

  it('a missing ledger.db is refused, not made anew', async () => {
    const dir = tmp('missing');
    await made(dir);
    for (const f of ['ledger.db', 'ledger.db-wal', 'ledger.db-shm']) rmSync(join(dir, f), { force: true });
    const state = open(dir);
    expect((await failure(state.meetings.list(WS))).message).toContain('(it is missing: ');
    expect((await failure(state.journal.remove('none'))).message).toContain('(it is missing: ');
    await state.close();
    expect(existsSync(join(dir, 'ledger.db'))).toBe(false);
  });

  it("another config directory's ledger in its place is refused; a copy of this one (a backup restored) is not", async () => {
    const a = tmp('mine');
    const b = tmp('theirs');
    await made(a);
    await made(b);
    const backup = join(tmp('backup'), 'ledger.db');
    writeFileSync(backup, readFileSync(join(a, 'ledger.db')));
    writeFileSync(join(a, 'ledger.db'), readFileSync(join(b, 'ledger.db')));
    const state = open(a);
    expect((await failure(state.meetings.list(WS))).message).toMatch(/it is another ledger \(id [0-9a-f]{12}\)/);
    await state.close();
    writeFileSync(join(a, 'ledger.db'), readFileSync(backup));
    const restored = open(a);
    expect(await restored.meetings.list(WS)).toEqual([]);
    await restored.close();
  });

  it('a ledger missing a table is STATE_FILE naming the file and the table', async () => {
    const dir = tmp('dropped');
    await made(dir);
    const db = new DatabaseSync(join(dir, 'ledger.db'));
    db.exec('DROP TABLE schedctl_meetings');
    db.close();
    const state = open(dir);
    const e = await failure(state.meetings.list(WS));
    expect(e.message).toContain(
      `${join(dir, 'ledger.db')} is not a readable schedctl ledger database file (its table schedctl_meetings is missing)`,
    );
    await state.close();
  });

  it('two tables missing are named both', async () => {
    const dir = tmp('dropped-two');
    await made(dir);
    const db = new DatabaseSync(join(dir, 'ledger.db'));
    db.exec('DROP TABLE schedctl_meetings; DROP TABLE schedctl_fires');
    db.close();
    const state = open(dir);
    expect((await failure(state.meetings.list(WS))).message).toContain(
      '(its tables schedctl_meetings, schedctl_fires are missing)',
    );
    await state.close();
  });

  it('a mark of an older schema version is brought up to date; a current one is not rewritten', async () => {
    const dir = tmp('mark-version');
    await made(dir);
    const { ledgerId } = readLedgerMark(dir)!;
    writeLedgerMark(dir, { ledgerId, schemaVersion: 2 });
    const state = open(dir);
    expect(await state.meetings.list(WS)).toEqual([]);
    await state.close();
    const current = readLedgerMark(dir);
    expect(current).toEqual({ ledgerId, schemaVersion: 3, serial: expect.any(Number) });
    const before = statSync(join(dir, LEDGER_MARK_FILE)).mtimeMs;
    writeFileSync(join(dir, LEDGER_MARK_FILE), `${JSON.stringify(current)} `);
    const again = open(dir);
    expect(await again.meetings.list(WS)).toEqual([]);
    await again.close();
    // Left as it was (the trailing space says so): nothing to write.
    expect(readFileSync(join(dir, LEDGER_MARK_FILE), 'utf8').endsWith('} ')).toBe(true);
    expect(before).toBeGreaterThan(0);
  });

  it('documents beside are moved in without a warn callback too', async () => {
    const dir = tmp('no-warn');
    await made(dir);
    writeDocuments(dir, documents(3));
    const state = openState(dir, { now: () => NOW });
    expect(await countTables(await (await state.backend()).sql())).toEqual(countDocuments(documents(3)));
    await state.close();
  });

  it('a ledger made before identities gets one, and its mark, on first use', async () => {
    const dir = tmp('before-ids');
    await made(dir);
    const db = new DatabaseSync(join(dir, 'ledger.db'));
    db.exec("DELETE FROM schedctl_ledger_marks WHERE mark = 'ledger-id'");
    db.close();
    rmSync(join(dir, LEDGER_MARK_FILE));
    const state = open(dir);
    expect(await state.meetings.list(WS)).toEqual([]);
    await state.close();
    expect(readLedgerMark(dir)?.ledgerId).toMatch(/^[0-9a-f]{12}$/);
  });

  it('two config directories on one ledger file (a symlink) each keep a mark of the same ledger', async () => {
    const a = tmp('link-a');
    const b = tmp('link-b');
    await made(a);
    symlinkSync(join(a, 'ledger.db'), join(b, 'ledger.db'));
    await made(b);
    expect(readLedgerMark(b)).toEqual(readLedgerMark(a));
  });
});

describe('versions cannot pass each other: documents beside the SQLite ledger are moved in, never ignored', () => {
  it('documents an older schedctl wrote after the migration are moved in (records there stay), one meeting per lead', async () => {
    const dir = tmp('after-migration');
    const docs = documents(20);
    writeDocuments(dir, docs);
    await made(dir);
    // The older schedctl writes its documents again (the same records and more), over the stand-ins.
    const later = documents(30);
    writeDocuments(dir, later);
    const said: string[] = [];
    const state = open(dir, said);
    const sql = await (await state.backend()).sql();
    expect(await countTables(sql)).toEqual(countDocuments(later));
    expect(said).toEqual([
      expect.stringMatching(
        /^note: ledger documents beside .*ledger\.db \(journal\.json, meetings\.json, outcomes\.json, fires\.json, events\.json, written by an older schedctl\?\) were moved into it/,
      ),
    ]);
    expect(standInsInPlace(dir)).toBe(true);
    expect(readdirSync(join(dir, 'ledger-documents-before-sqlite')).length).toBe(10);
    await oneMeetingPerLead(state, later);
    await state.close();
  });

  it('documents that appear after this version made ledger.db first (profile add) are moved in, and attributed again', async () => {
    const dir = tmp('ledger-first');
    const state = open(dir);
    await state.workspaces.once(legacyMark(dir), async () => {});
    await state.close();
    const docs = documents(10);
    writeDocuments(dir, docs);
    const again = open(dir);
    expect(await countTables(await (await again.backend()).sql())).toEqual(countDocuments(docs));
    // The legacy records' attribution runs again for them.
    expect(await again.workspaces.marked(legacyMark(dir))).toBe(false);
    await oneMeetingPerLead(again, docs);
    await again.close();
  });

  it('a damaged document beside the ledger is refused, naming it; nothing is moved', async () => {
    const dir = tmp('damaged-beside');
    await made(dir);
    writeFileSync(join(dir, 'journal.json'), '{"entries": 1');
    const state = open(dir);
    expect((await failure(state.meetings.list(WS))).message).toContain(join(dir, 'journal.json'));
    await state.close();
    expect(readFileSync(join(dir, 'journal.json'), 'utf8')).toBe('{"entries": 1');
  });
});

/** Every lead of the documents with an upcoming meeting is refused another: one meeting each, none twice. */
async function oneMeetingPerLead(state: ReturnType<typeof open>, docs: LedgerDocuments) {
  const meetings = Object.values(docs.meetings?.meetings ?? {});
  for (const m of meetings.filter((x) => Date.parse(x.date) >= NOW.getTime())) {
    const scope = m.scope === LEGACY ? LEGACY : WS;
    const record = await leadRecord(state, scope, m.personEmail, NOW);
    expect(record.meetings.map((r) => r.id)).toEqual([m.id]);
    const verdict = decide(
      record,
      { kind: 'route', triggerId: 'other', answersKey: 'other', start: 'first' },
      { rebook: false, aliases: {} },
    );
    expect(['has_meeting', 'unknown_attempt']).toContain(verdict.kind);
  }
}

describe('state reset-ledger (ledger-reset.ts)', () => {
  it('sets the file there aside with its -wal and -shm (nothing deleted), drops the mark, makes a new ledger', async () => {
    const { resetLedger } = await import('../../src/state/sqlite/ledger-reset.js');
    const dir = tmp('reset');
    await made(dir);
    const before = readLedgerMark(dir)!.ledgerId;
    writeFileSync(join(dir, 'ledger.db'), '');
    writeFileSync(join(dir, 'ledger.db-wal'), 'w');
    writeFileSync(join(dir, 'ledger.db-shm'), 's');
    const state = open(dir);
    const at = new Date('2031-03-01T12:00:00.123Z');
    const done = await resetLedger(dir, async () => (await state.backend()).sql(), at);
    const aside = join(dir, 'ledger.db.before-reset-2031-03-01T12-00-00-123Z');
    expect(done).toEqual({
      ledger: join(dir, 'ledger.db'),
      ledgerId: expect.stringMatching(/^[0-9a-f]{12}$/),
      setAside: [aside, `${aside}-wal`, `${aside}-shm`],
    });
    expect(done.ledgerId).not.toBe(before);
    expect(readFileSync(`${aside}-wal`, 'utf8')).toBe('w');
    expect(readFileSync(`${aside}-shm`, 'utf8')).toBe('s');
    expect(statSync(aside).size).toBe(0);
    expect(readLedgerMark(dir)?.ledgerId).toBe(done.ledgerId);
    expect(await state.meetings.list(WS)).toEqual([]);
    await state.close();
  });

  it('a file it cannot set aside is STATE_WRITE, naming it', async () => {
    const { resetLedger } = await import('../../src/state/sqlite/ledger-reset.js');
    const dir = tmp('reset-blocked');
    await made(dir);
    const aside = join(dir, 'ledger.db.before-reset-2031-03-01T12-00-00-000Z');
    mkdirSync(join(aside, 'full'), { recursive: true });
    await expect(
      resetLedger(
        dir,
        async () => {
          throw new Error('not reached');
        },
        NOW,
      ),
    ).rejects.toMatchObject({
      code: 'STATE_WRITE',
      message: expect.stringContaining(`cannot write ${join(dir, 'ledger.db')}`),
    });
  });

  it('with no file there: sets nothing aside, makes the ledger', async () => {
    const { resetLedger } = await import('../../src/state/sqlite/ledger-reset.js');
    const dir = tmp('reset-none');
    const state = open(dir);
    const done = await resetLedger(dir, async () => (await state.backend()).sql(), NOW);
    expect(done.setAside).toEqual([]);
    expect(existsSync(join(dir, 'ledger.db'))).toBe(true);
    await state.close();
  });
});
