/**
 * The schema check sent in front of a command's first statement (backend.ts takeGuard, schema.ts
 * schemaGuard) instead of a round trip of its own: on the current schema the statement's answer
 * comes with it; on an older one (or none) the full check migrates and the statement runs again;
 * on a newer one the command is refused and nothing is written, a rate budget draw included.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createRateBudget } from '../../src/api/rate-budget.js';
import { forgetSentForTests } from '../../src/api/send-hook.js';
import { postgresBackend } from '../../src/state/postgres/backend.js';
import { pgBudgetStore } from '../../src/state/postgres/rate-budget.js';
import { SCHEMA_VERSION } from '../../src/state/postgres/schema.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';

let pg: TestPostgres;
const dir = mkdtempSync(join(tmpdir(), 'pg-guard-'));
beforeAll(async () => {
  pg = await startPostgres();
}, 60_000);
// The suite's workers share modules between files (isolate: false): a test file before this one
// may have marked a request sent, and a failed step would then go to the mirror, not refuse.
beforeEach(() => forgetSentForTests());
afterAll(async () => {
  await pg?.destroy();
  rmSync(dir, { recursive: true, force: true });
});

/** A backend as a command opens it, counting the simple and extended queries its pool sends. */
async function backendOn(url: string) {
  const backend = postgresBackend({ url, dir, now: () => new Date(), leadWaitMs: 1000 });
  const texts: string[] = [];
  const pool = await backend.db.pool();
  pool.on('connect', (client) => {
    const query = client.query.bind(client) as (...a: unknown[]) => unknown;
    (client as unknown as { query: (...a: unknown[]) => unknown }).query = (...a: unknown[]) => {
      const q = a[0];
      texts.push(typeof q === 'string' ? q : String((q as { text?: string }).text));
      return query(...a);
    };
  });
  return { backend, texts };
}

const dbName = (url: string) => new URL(url).pathname.slice(1);

describe('the schema check in front of the first statement', () => {
  it('on the current schema: one round trip for the check and the read, the backend ready after it', async () => {
    const url = await pg.createDatabase();
    const setup = postgresBackend({ url, dir, now: () => new Date(), leadWaitMs: 1000 });
    await setup.ready();
    await setup.close();
    const { backend, texts } = await backendOn(url);
    const sql = await backend.sql();
    expect(await sql.all('SELECT count(*)::int AS n FROM schedctl_meetings')).toEqual([{ n: 0 }]);
    expect(texts).toHaveLength(1);
    expect(texts[0]).toMatch(/^SELECT 1 \/ \(SELECT count\(\*\) FROM schedctl_meta .*; SELECT count/);
    // Ready: no check of its own later, and the next statement goes alone.
    await backend.ready();
    await sql.all('SELECT count(*)::int AS n FROM schedctl_attempts');
    expect(texts).toHaveLength(2);
    expect(texts[1]).not.toContain('schedctl_meta');
    await backend.close();
  });

  it('on an empty database: the guard fails, the schema is made, the statement runs again', async () => {
    const url = await pg.createDatabase();
    const { backend } = await backendOn(url);
    const sql = await backend.sql();
    expect(await sql.all('SELECT count(*)::int AS n FROM schedctl_meetings')).toEqual([{ n: 0 }]);
    expect(await pg.psql(`SELECT value FROM schedctl_meta WHERE key = 'schema_version'`, dbName(url))).toBe(
      String(SCHEMA_VERSION),
    );
    await backend.close();
  });

  it('on an older schema: migrated, then the write lands once', async () => {
    const url = await pg.createDatabase();
    const setup = postgresBackend({ url, dir, now: () => new Date(), leadWaitMs: 1000 });
    await setup.ready();
    await setup.close();
    // Schema 3's version row (its tables are a subset: migration 4 adds the workspace tables).
    await pg.psql(
      `UPDATE schedctl_meta SET value = '3' WHERE key = 'schema_version'; DROP TABLE schedctl_workspace_keys; DROP TABLE schedctl_ledger_marks`,
      dbName(url),
    );
    const { backend } = await backendOn(url);
    const sql = await backend.sql();
    await sql.transaction(async (tx) => {
      tx.defer(`INSERT INTO schedctl_ledger_marks (mark, at_ms) VALUES (?, ?)`, ["it's \\ ü", 1]);
    });
    // (Migration 4 adds a mark of its own.)
    expect(await pg.psql('SELECT mark FROM schedctl_ledger_marks WHERE at_ms = 1', dbName(url))).toBe("it's \\ ü");
    expect(await pg.psql(`SELECT value FROM schedctl_meta WHERE key = 'schema_version'`, dbName(url))).toBe(
      String(SCHEMA_VERSION),
    );
    await backend.close();
  });

  it('on a newer schema: refused, and neither the statement nor a budget draw writes anything', async () => {
    const url = await pg.createDatabase();
    const setup = postgresBackend({ url, dir, now: () => new Date(), leadWaitMs: 1000 });
    await setup.ready();
    await setup.close();
    await pg.psql(`UPDATE schedctl_meta SET value = '${SCHEMA_VERSION + 1}' WHERE key = 'schema_version'`, dbName(url));

    const { backend } = await backendOn(url);
    const sql = await backend.sql();
    await expect(
      sql.transaction(async (tx) => {
        tx.defer(`INSERT INTO schedctl_ledger_marks (mark, at_ms) VALUES (?, ?)`, ['x', 1]);
      }),
    ).rejects.toThrow(/newer than this schedctl's/);
    await backend.close();

    // The draw as a command's first statement: refused by the check, so the budget counts this
    // process's requests only, and the newer schema's table is not written.
    const second = await backendOn(url);
    const store = pgBudgetStore(second.backend, 'ab'.repeat(16), Date.now);
    const budget = createRateBudget({ dir, baseUrl: 'x', apiKey: 'y', store, limit: 5 });
    await budget.draw();
    expect(await pg.psql('SELECT count(*) FROM schedctl_rate_budgets', dbName(url))).toBe('0');
    expect(await pg.psql(`SELECT count(*) FROM schedctl_ledger_marks WHERE mark = 'x'`, dbName(url))).toBe('0');
    await second.backend.close();
  });
});
