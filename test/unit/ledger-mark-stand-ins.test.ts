/**
 * What an older schedctl and the next run of this one find on disk (issue 44): the stand-ins in
 * place of each ledger document (sqlite/documents-beside.ts) and the ledger's mark beside it
 * (sqlite/ledger-mark.ts), down to their names and texts, which are contracts with files already
 * written. ledger-presence.test.ts proves them through the store; here the modules themselves.
 *
 * Their tables (the document names, each stand-in's shape, the mark's file name) are built when
 * the module loads, once per process, before any test runs: a module loaded fresh (its own copy,
 * `fresh()`) is what a test asks, so the test sees the tables as that load built them.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { StateFileError } from '../../src/state/errors.js';
// Imported as values too (not only their types): what one copy writes, the other reads; and
// Stryker's vitest runner picks the tests of a mutated file by what imports it.
import * as Beside from '../../src/state/sqlite/documents-beside.js';
import * as Mark from '../../src/state/sqlite/ledger-mark.js';

let loads = 0;
/** A copy of the module of its own (a new query: not the one loaded already), its tables built anew. */
const fresh = async <T>(file: string): Promise<T> =>
  (await import(
    /* @vite-ignore */ `${new URL(`../../src/state/sqlite/${file}`, import.meta.url).href}?fresh=${++loads}`
  )) as T;
const tmp = (name: string) => mkdtempSync(join(tmpdir(), `${name}-`));

const UPGRADE = 'written by a newer schedctl: this ledger moved into ledger.db; upgrade schedctl to use it';
const RESET = 'schedctl state reset-ledger --yes';

describe('stand-ins: what an older schedctl finds in place of each ledger document', () => {
  it('one in place of each of the five documents, each the shape its older schema refuses, saying why', async () => {
    const beside = await fresh<typeof Beside>('documents-beside.ts');
    expect(beside.DOCUMENT_FILES).toEqual([
      'journal.json',
      'meetings.json',
      'outcomes.json',
      'fires.json',
      'events.json',
    ]);
    const shape = (name: string) => JSON.parse(beside.standInText(name)) as unknown;
    const said = { ledgerMovedInto: 'ledger.db', note: UPGRADE };
    // A list wanted: a string; a record wanted: one entry whose key the older version quotes.
    expect(shape('journal.json')).toEqual({ entries: UPGRADE, ...said });
    expect(shape('fires.json')).toEqual({ fires: UPGRADE, ...said });
    expect(shape('meetings.json')).toEqual({ meetings: { [UPGRADE]: 0 }, ...said });
    expect(shape('outcomes.json')).toEqual({ outcomes: { [UPGRADE]: 0 }, ...said });
    expect(shape('events.json')).toEqual({ aliases: { [UPGRADE]: 0 }, ...said });
    expect(beside.standInText('journal.json').endsWith('}\n')).toBe(true);
  });

  it('are placed in every document’s place, told from documents, and the documents moved in go aside by name', async () => {
    const beside = await fresh<typeof Beside>('documents-beside.ts');
    const dir = tmp('stand-ins-fresh');
    writeFileSync(join(dir, 'outcomes.json'), '{"outcomes":{}}');
    expect(beside.documentsBeside(dir)).toEqual(['outcomes.json']);
    expect(beside.putDocumentsAside(dir, 1)).toEqual({
      moved: ['outcomes.json'],
      aside: join(dir, 'ledger-documents-before-sqlite'),
    });
    expect(readdirSync(join(dir, 'ledger-documents-before-sqlite'))).toEqual(['outcomes.json']);
    expect(readdirSync(dir).sort()).toEqual([
      'events.json',
      'fires.json',
      'journal.json',
      'ledger-documents-before-sqlite',
      'meetings.json',
      'outcomes.json',
    ]);
    expect(beside.standInsInPlace(dir)).toBe(true);
    expect(beside.documentsBeside(dir)).toEqual([]);
    // The module as every command loads it reads them as stand-ins too.
    expect(Beside.standInsInPlace(dir)).toBe(true);
    expect(JSON.parse(readFileSync(join(dir, 'outcomes.json'), 'utf8'))).toMatchObject({
      ledgerMovedInto: 'ledger.db',
    });
  });
});

describe('the ledger mark: what the next run finds beside the ledger', () => {
  it('is ledger-id.json in the config directory, the identity as 12 hex digits of a 48-bit number', async () => {
    const mark = await fresh<typeof Mark>('ledger-mark.ts');
    const dir = tmp('mark-fresh');
    expect(mark.LEDGER_MARK_FILE).toBe('ledger-id.json');
    expect(mark.markPath(dir)).toBe(join(dir, 'ledger-id.json'));
    // The row of the ledger that holds its identity, in every ledger written so far.
    expect(mark.LEDGER_ID_MARK).toBe('ledger-id');
    expect(mark.RESET_COMMAND).toBe(RESET);
    mark.writeLedgerMark(dir, { ledgerId: '0000000abc12', schemaVersion: 3 });
    expect(JSON.parse(readFileSync(join(dir, 'ledger-id.json'), 'utf8'))).toEqual({
      ledgerId: '0000000abc12',
      schemaVersion: 3,
    });
    expect(mark.readLedgerMark(dir)).toEqual({ ledgerId: '0000000abc12', schemaVersion: 3 });
    expect(Mark.readLedgerMark(dir)).toEqual({ ledgerId: '0000000abc12', schemaVersion: 3 });
    mark.removeLedgerMark(dir);
    expect(mark.readLedgerMark(dir)).toBeUndefined();
    const id = mark.newLedgerId();
    expect(Number.isSafeInteger(id) && id >= 1 && id < 2 ** 48).toBe(true);
    expect(mark.formatLedgerId(0xabc12)).toBe('0000000abc12');
    expect(mark.formatLedgerId(2 ** 48 - 2)).toBe('fffffffffffe');
  });

  it('a damaged mark is refused naming it, what it is and what to do; the mark is left as it was', async () => {
    const mark = await fresh<typeof Mark>('ledger-mark.ts');
    const dir = tmp('mark-damaged');
    writeFileSync(join(dir, 'ledger-id.json'), '{"ledgerId":"xyz"}');
    const e = catching(() => mark.readLedgerMark(dir));
    expect(e).toBeInstanceOf(StateFileError);
    expect(e.message).toBe(
      `${join(dir, 'ledger-id.json')} is not a readable schedctl ledger identity file (unexpected content): it was not changed; restore it from a backup, or run \`${RESET}\` to start a new ledger`,
    );
    expect(readFileSync(join(dir, 'ledger-id.json'), 'utf8')).toBe('{"ledgerId":"xyz"}');
  });

  it('a mark that cannot be read is refused too, naming why: it is not taken for a directory that never had a ledger', async () => {
    const mark = await fresh<typeof Mark>('ledger-mark.ts');
    const dir = tmp('mark-unreadable');
    // Something in the mark's place that is no file (a directory): EISDIR, not "no mark".
    mkdirSync(join(dir, 'ledger-id.json'));
    const e = catching(() => mark.readLedgerMark(dir));
    expect(e).toBeInstanceOf(StateFileError);
    expect(e.message).toMatch(
      /^\S+ledger-id\.json is not a readable schedctl ledger identity file \(EISDIR: [^)]*\): it was not changed; restore it from a backup, or run `schedctl state reset-ledger --yes` to start a new ledger$/,
    );
    // A config directory that is a file: no directory there, so no mark, not an error.
    writeFileSync(join(dir, 'file'), '');
    expect(mark.readLedgerMark(join(dir, 'file'))).toBeUndefined();
  });

  it('the refusal of a missing ledger names the mark beside it and the command that starts a new one', async () => {
    const mark = await fresh<typeof Mark>('ledger-mark.ts');
    const refused = mark.refusal('/c/ledger.db', { ledgerId: '0000000000aa', schemaVersion: 3 }, { kind: 'missing' });
    expect(refused?.message).toBe(
      `/c/ledger.db is not a readable schedctl ledger database file (it is missing: this config directory's ledger (id 0000000000aa, /c/ledger-id.json) was here): restore it from a backup, or run \`${RESET}\` to start a new, empty ledger (its meetings and attempts then no longer keep a lead from a second booking)`,
    );
  });
});

function catching(f: () => unknown): Error {
  try {
    f();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected an error');
}
