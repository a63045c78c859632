/**
 * The SQLite ledger's migrations (src/state/sqlite/migrate.ts), asked directly: the schema they
 * make (every ledger file written so far has it: a shipped migration never changes), the
 * identity made with the ledger (ledger-mark.ts), which file counts as emptied, and which
 * migration moves the documents of a schedctl from before the tables in. state-sqlite.test.ts
 * holds the rest (the pragmas, refusals, the documents' move and its failure).
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import { StateFileError } from '../../src/state/errors.js';
import { ledgerTables } from '../../src/state/sql/tables.js';
import type { LedgerCounts } from '../../src/state/sql/documents.js';
import * as loaded from '../../src/state/sqlite/migrate.js';
import { DOCUMENTS_ASIDE } from '../../src/state/sqlite/documents-beside.js';
import { APPLICATION_ID, migrate, SQLITE_SCHEMA_VERSION, type MigrateOptions } from '../../src/state/sqlite/migrate.js';

const ZERO: LedgerCounts = { journal: 0, meetings: 0, outcomes: 0, fires: 0, events: 0 };
const opts = (o: Partial<MigrateOptions> = {}): MigrateOptions => ({
  busyMs: 1000,
  hasDocuments: () => false,
  importDocuments: undefined,
  ...o,
});
/** A new ledger.db in a directory of its own. */
const file = () => {
  const dir = mkdtempSync(join(tmpdir(), 'migrate-rules-'));
  const path = join(dir, 'ledger.db');
  return { dir, path, db: new DatabaseSync(path) };
};
/** A ledger of schema 1 (before workspaces, run logs and identities), as the first release wrote it. */
const schemaOne = () => {
  const f = file();
  for (const sql of ledgerTables('integer PRIMARY KEY AUTOINCREMENT', 'integer')) f.db.exec(sql);
  f.db.exec(`PRAGMA application_id = ${APPLICATION_ID}; PRAGMA user_version = 1`);
  return f;
};
const identity = (db: DatabaseSync) =>
  db.prepare("SELECT at_ms FROM schedctl_ledger_marks WHERE mark = 'ledger-id'").all() as { at_ms: number }[];

let loads = 0;
/**
 * A copy of migrate.ts of its own, its migrations and table list built as it loads (they are
 * built once per process, when the module is first loaded: a fresh load is what a test can ask).
 */
const fresh = async (): Promise<typeof loaded> =>
  (await import(
    /* @vite-ignore */ `${new URL('../../src/state/sqlite/migrate.ts', import.meta.url).href}?fresh=${++loads}`
  )) as typeof loaded;

/** Each table with its columns (type, NOT NULL, primary key) and whether its sequence never reuses a number. */
function schemaOf(db: DatabaseSync): string[] {
  const tables = db
    .prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name LIKE 'schedctl_%' ORDER BY name")
    .all() as { name: string; sql: string }[];
  return tables.map(({ name, sql }) => {
    const columns = db.prepare(`PRAGMA table_info(${name})`).all() as {
      name: string;
      type: string;
      notnull: number;
      pk: number;
    }[];
    const described = columns.map((c) => `${c.name} ${c.type}${c.notnull ? ' not null' : ''}${c.pk ? ' pk' : ''}`);
    return `${name}${sql.includes('AUTOINCREMENT') ? ' (autoincrement)' : ''}: ${described.join(', ')}`;
  });
}

describe('the schema the migrations make', () => {
  it('is the one every ledger written so far has: its tables, columns and keys; LEDGER_TABLES names each table', async () => {
    const m = await fresh();
    const db = new DatabaseSync(':memory:');
    await m.migrate(db, ':memory:', opts(), true);
    expect(schemaOf(db)).toEqual([
      'schedctl_attempts (autoincrement): seq INTEGER pk, id TEXT not null, workspace TEXT not null, lead TEXT not null, reservation_id TEXT not null, execution_id TEXT, meeting_id TEXT, outcome TEXT not null, sent INTEGER not null, start_ms INTEGER, touched_ms INTEGER, body TEXT not null',
      'schedctl_event_aliases: workspace TEXT not null pk, alias TEXT not null pk, event_id TEXT not null',
      'schedctl_fires (autoincrement): seq INTEGER pk, id TEXT not null, workspace TEXT not null, lead TEXT not null, trigger_id TEXT not null, state TEXT not null, execution_id TEXT, prepared_ms INTEGER, body TEXT not null',
      'schedctl_ledger_marks: mark TEXT pk, at_ms INTEGER not null',
      'schedctl_meetings: workspace TEXT not null pk, id TEXT not null pk, lead TEXT not null, start_ms INTEGER, over_ms INTEGER, status TEXT not null, trigger_id TEXT, event TEXT not null, event_id TEXT not null, body TEXT not null',
      'schedctl_outcomes: workspace TEXT not null pk, trigger_id TEXT not null pk, lead TEXT not null pk, execution_id TEXT not null, body TEXT not null',
      'schedctl_run_records (autoincrement): seq INTEGER pk, log_key TEXT not null, record TEXT not null, at_ms INTEGER not null',
      'schedctl_workspace_keys: base_url TEXT not null pk, fingerprint TEXT not null pk, workspace TEXT not null, names TEXT not null, added_ms INTEGER not null',
    ]);
    // What a ledger missing a table is checked against (engine.ts): each of them, in migration order.
    expect(m.LEDGER_TABLES).toEqual([
      'schedctl_attempts',
      'schedctl_meetings',
      'schedctl_fires',
      'schedctl_outcomes',
      'schedctl_event_aliases',
      'schedctl_workspace_keys',
      'schedctl_ledger_marks',
      'schedctl_run_records',
    ]);
    expect(m.SQLITE_SCHEMA_VERSION).toBe(3);
    db.close();
  });
});

describe("the ledger's identity (ledger-mark.ts), made with it", () => {
  it('a new ledger has one identity from its migration on, in the same transaction; migrating again keeps it', async () => {
    const { db, path } = file();
    await migrate(db, path, opts());
    const [made, ...more] = identity(db);
    expect(more).toEqual([]);
    expect(made!.at_ms).toBeGreaterThanOrEqual(1);
    expect(made!.at_ms).toBeLessThan(2 ** 48);
    await migrate(db, path, opts());
    expect(identity(db)).toEqual([made]);
    db.close();
  });

  it('a ledger of before identities gets one as it migrates', async () => {
    // Schema 1 had no marks table: the migration to 2 makes it, and the identity goes in it.
    const { db, path } = schemaOne();
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'schedctl_ledger_marks'").get()).toBeUndefined();
    await migrate(db, path, opts());
    expect(identity(db)).toHaveLength(1);
    expect(db.prepare('PRAGMA user_version').get()).toEqual({ user_version: SQLITE_SCHEMA_VERSION });
    db.close();
  });

  it('the ledger in memory (read before a file exists) has none: it is nobody’s ledger yet', async () => {
    const db = new DatabaseSync(':memory:');
    await migrate(db, '/c/ledger.db', opts(), true);
    expect(identity(db)).toEqual([]);
    db.close();
  });
});

describe('an emptied ledger (a file with no schema where a ledger was)', () => {
  it('is refused with the error the caller gives, and left with no schema', async () => {
    const { db, path } = file();
    const refused = new StateFileError(path, 'ledger database', 'it is empty', 'restore it');
    let asked = 0;
    const e = await migrate(db, path, opts({ emptied: () => (asked++, refused) })).catch((error: unknown) => error);
    expect(e).toBe(refused);
    expect(asked).toBe(1);
    expect(db.prepare('SELECT count(*) AS n FROM sqlite_master').get()).toEqual({ n: 0 });
    db.close();
  });

  it('is never a ledger with a schema, even an older one: that one is migrated, the caller not asked', async () => {
    const { db, path } = schemaOne();
    let asked = 0;
    await migrate(db, path, opts({ emptied: () => (asked++, new Error('not emptied')) }));
    expect(asked).toBe(0);
    expect(db.prepare('PRAGMA user_version').get()).toEqual({ user_version: SQLITE_SCHEMA_VERSION });
    db.close();
  });
});

describe('which migration moves the documents of a schedctl from before the tables in', () => {
  it('only the first: beside a ledger that has tables they are left as they are (the store moves them in, keeping its records)', async () => {
    const { dir, db, path } = schemaOne();
    writeFileSync(join(dir, 'journal.json'), '{"entries":[]}');
    let imported = 0;
    await migrate(
      db,
      path,
      opts({ hasDocuments: () => true, importDocuments: async () => (imported++, { read: ZERO, written: ZERO }) }),
    );
    expect(imported).toBe(0);
    expect(readFileSync(join(dir, 'journal.json'), 'utf8')).toBe('{"entries":[]}');
    expect(existsSync(join(dir, DOCUMENTS_ASIDE))).toBe(false);
    db.close();
  });

  it('without a way to move them in, none is put aside nor replaced by a stand-in', async () => {
    const { dir, db, path } = file();
    writeFileSync(join(dir, 'meetings.json'), '{"meetings":{}}');
    const said: string[] = [];
    await migrate(db, path, opts({ hasDocuments: () => true, warn: (line) => said.push(line) }));
    expect(readFileSync(join(dir, 'meetings.json'), 'utf8')).toBe('{"meetings":{}}');
    expect(existsSync(join(dir, DOCUMENTS_ASIDE))).toBe(false);
    expect(existsSync(join(dir, 'journal.json'))).toBe(false);
    expect(said).toEqual([]);
    db.close();
  });
});
