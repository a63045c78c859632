/**
 * A team database's schema 2 moves into schema 3 (tables), and on to 4 (workspace keys), nothing lost, with a second machine
 * starting at the same moment. Every kind of record is counted before and after.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openState } from '../../src/state/index.js';
import { countDocuments, countTables, type LedgerDocuments } from '../../src/state/sql/documents.js';
import { documents, FILE_OF, NOW, WS } from '../helpers/ledger-documents.js';
import { usePostgres } from '../helpers/postgres.js';

describe('a team database of schema 2 moves into schema 3', () => {
  const fx = usePostgres();

  it('under the migration lock, once, with every record, while a second machine starts at the same moment', async () => {
    const url = await fx.pg.createDatabase('schema2');
    const docs = documents(30);
    // Schema 2 as the last schedctl made it: its documents table, meta row and the other tables.
    await fx.pg.psql(
      [
        'CREATE TABLE schedctl_meta (key text PRIMARY KEY, value text NOT NULL)',
        `INSERT INTO schedctl_meta VALUES ('schema_version', '2')`,
        'CREATE TABLE schedctl_documents (kind text PRIMARY KEY, body jsonb NOT NULL, updated_at timestamptz NOT NULL DEFAULT now())',
        'CREATE TABLE schedctl_locks (name text PRIMARY KEY, lock_key bigint NOT NULL, backend_pid integer NOT NULL, owner jsonb NOT NULL)',
        'CREATE TABLE schedctl_rate_budgets (budget_id text PRIMARY KEY, state jsonb NOT NULL, updated_at timestamptz NOT NULL DEFAULT now())',
        'CREATE TABLE schedctl_run_records (log_key text NOT NULL, seq bigserial NOT NULL, record jsonb NOT NULL, at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (log_key, seq))',
        // Made by schedctl's own role, as the last schedctl did.
        ...['meta', 'documents', 'locks', 'rate_budgets', 'run_records'].map(
          (t) => `ALTER TABLE schedctl_${t} OWNER TO schedctl_test`,
        ),
        ...Object.entries(FILE_OF).map(
          ([kind, file]) =>
            `INSERT INTO schedctl_documents (kind, body) VALUES ('${file}', '${JSON.stringify(docs[kind as keyof LedgerDocuments]).replace(/'/g, "''")}')`,
        ),
      ].join(';'),
      'schema2',
    );
    const machine = () =>
      openState(mkdtempSync(join(tmpdir(), 'migrate-team-')), { now: () => NOW, stateUrl: () => url });
    const [a, b] = [machine(), machine()];
    const [ca, cb] = await Promise.all([
      a.backend().then(async (x) => countTables(await x.sql())),
      b.backend().then(async (x) => countTables(await x.sql())),
    ]);
    expect(ca).toEqual(countDocuments(docs));
    expect(cb).toEqual(countDocuments(docs));
    expect(await fx.pg.psql(`SELECT value FROM schedctl_meta WHERE key = 'schema_version'`, 'schema2')).toBe('4');
    // The documents' table is kept, renamed; nothing was moved twice.
    expect(await fx.pg.psql('SELECT count(*) FROM schedctl_documents_schema2', 'schema2')).toBe('5');
    expect((await a.journal.ofLead(WS, 'LEAD1@example.com')).map((e) => e.id)).toEqual(['a1']);
    await Promise.all([a.close(), b.close()]);
  });
});
