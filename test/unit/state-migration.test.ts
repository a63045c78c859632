/**
 * The ledger's move from documents into tables, nothing lost: the local JSON files of the last
 * schedctl into SQLite, and a team database's schema 2 into schema 3 (with a second machine
 * starting at the same moment). Every kind of record is counted before and after.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { StateTooNewError } from '../../src/state/errors.js';
import { openState } from '../../src/state/index.js';
import { APPLICATION_ID, SQLITE_SCHEMA_VERSION } from '../../src/state/sqlite/migrate.js';
import { isStandIn } from '../../src/state/sqlite/documents-beside.js';
import { countDocuments, countTables, type LedgerDocuments } from '../../src/state/sql/documents.js';
import { documents, FILE_OF, LEGACY, NOW, WS } from '../helpers/ledger-documents.js';

describe('the local documents move into SQLite', () => {
  it('moves every record once, puts the files aside and says where, and answers the same questions', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'migrate-local-'));
    const docs = documents(40);
    for (const [kind, file] of Object.entries(FILE_OF))
      writeFileSync(join(dir, file), JSON.stringify(docs[kind as keyof LedgerDocuments]));
    const said: string[] = [];
    const state = openState(dir, { now: () => NOW, warn: (line) => said.push(line) });
    // A write opens the file: the move happens then, in one transaction.
    await state.journal.remove('none');
    const sql = await (await state.backend()).sql();
    expect(await countTables(sql)).toEqual(countDocuments(docs));
    expect(said).toEqual([
      expect.stringMatching(
        /^note: the ledger moved into .*ledger\.db; its former files \(journal\.json, meetings\.json, outcomes\.json, fires\.json, events\.json\) are kept in .*ledger-documents-before-sqlite$/,
      ),
    ]);
    // In their place, stand-ins an older schedctl refuses (documents-beside.ts), and the ledger's mark.
    expect(
      readdirSync(dir)
        .filter((f) => f.endsWith('.json'))
        .sort(),
    ).toEqual([...Object.values(FILE_OF), 'ledger-id.json'].sort());
    for (const file of Object.values(FILE_OF)) expect(isStandIn(join(dir, file)), file).toBe(true);
    expect(readdirSync(join(dir, 'ledger-documents-before-sqlite')).sort()).toEqual(Object.values(FILE_OF).sort());
    // The same answers as the documents gave: a lead's attempts (case-folded), legacy outcomes by their key.
    expect((await state.journal.ofLead(WS, 'lead1@example.com')).map((e) => e.id)).toEqual(['a1']);
    expect((await state.outcomes.get(LEGACY, 't1', 'LEAD0@example.com'))?.executionId).toBe('x0');
    expect(await state.events.of(WS, ['link-1'])).toEqual({ 'link-1': '11111111-1111-4111-8111-111111111111' });
    expect((await state.meetings.get(LEGACY, 'm5'))?.personEmail).toBe('Lead5@Example.com');
    await state.close();

    // A second run finds the tables current, moves nothing and says nothing.
    const again = openState(dir, { now: () => NOW, warn: (line) => said.push(line) });
    await again.journal.remove('none');
    expect(await countTables(await (await again.backend()).sql())).toEqual(countDocuments(docs));
    expect(said).toHaveLength(1);
    await again.close();
  });

  it('reads the documents in place before the first write, and leaves a damaged one untouched, naming it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'migrate-local-'));
    writeFileSync(join(dir, 'journal.json'), JSON.stringify(documents(3).journal));
    writeFileSync(join(dir, 'meetings.json'), '{"meetings": {');
    const state = openState(dir, { now: () => NOW });
    const error = await state.journal.add(documents(1).journal!.entries[0]!).catch((e: unknown) => e);
    expect((error as Error).message).toContain(
      `${join(dir, 'meetings.json')} is not a readable schedctl meetings file`,
    );
    expect(existsSync(join(dir, 'ledger.db'))).toBe(false);
    expect(existsSync(join(dir, 'journal.json'))).toBe(true);
  });
});

describe('a ledger database schedctl cannot use', () => {
  const refusal = async (prepare: (path: string) => void) => {
    const dir = mkdtempSync(join(tmpdir(), 'migrate-refuse-'));
    const path = join(dir, 'ledger.db');
    prepare(path);
    const before = readFileSync(path);
    const state = openState(dir, { now: () => NOW });
    const error = await state.journal.all().catch((e: unknown) => e);
    // Never written: the file is as it was.
    expect(readFileSync(path)).toEqual(before);
    return error as Error & { code?: string; hint?: string };
  };

  it('refuses a file that is not a database, naming it, and leaves it untouched', async () => {
    const e = await refusal((path) => writeFileSync(path, 'not a database, just text'.repeat(100)));
    expect(e.code).toBe('STATE_FILE');
    expect(e.message).toMatch(/ledger\.db is not a readable schedctl ledger database file \(file is not a database\)/);
  });

  it("refuses another program's SQLite database", async () => {
    const e = await refusal((path) => {
      const db = new DatabaseSync(path);
      db.exec('CREATE TABLE notes (body text)');
      db.close();
    });
    expect(e.code).toBe('STATE_FILE');
    expect(e.message).toContain('(it is a SQLite database of another program)');
  });

  it('refuses a database a newer schedctl migrated further, naming both versions', async () => {
    const e = await refusal((path) => {
      const db = new DatabaseSync(path);
      db.exec(`PRAGMA application_id = ${APPLICATION_ID}; PRAGMA user_version = ${SQLITE_SCHEMA_VERSION + 1}`);
      db.close();
    });
    expect(e).toBeInstanceOf(StateTooNewError);
    expect(e.message).toContain(`ledger schema ${SQLITE_SCHEMA_VERSION + 1}; this one knows ${SQLITE_SCHEMA_VERSION}`);
    expect(e.hint).toContain('newer schedctl');
  });

  it('reads an empty ledger from a directory with no database, and creates nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'migrate-none-'));
    const state = openState(dir, { now: () => NOW });
    expect(await state.journal.all()).toEqual([]);
    expect(await state.meetings.list(WS)).toEqual([]);
    expect(await state.events.of(WS, ['demo'])).toEqual({});
    expect(readdirSync(dir)).toEqual([]);
    await state.journal.remove('none');
    expect(readdirSync(dir).filter((f) => !f.startsWith('ledger.db-') && !isStandIn(join(dir, f)))).toEqual([
      'ledger-id.json',
      'ledger.db',
    ]);
    expect(statSync(join(dir, 'ledger.db')).mode & 0o777).toBe(0o600);
  });
});
