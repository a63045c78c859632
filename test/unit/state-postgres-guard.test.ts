/**
 * The schema check sent in front of a command's first statements (connect.ts checkSchema, schema.ts
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
// @ts-expect-error: a script's module (JavaScript, no types)
import { startForwarder } from '../../scripts/pg-forwarder.mjs';

let pg: TestPostgres;
const dir = mkdtempSync(join(tmpdir(), 'pg-guard-'));
beforeAll(async () => {
  pg = await startPostgres();
}, 60_000);
// The suite's workers share modules between files (isolate: false): a test file before this one
// may have marked a request sent, and a failed step would then be kept on this machine, not refuse.
beforeEach(() => forgetSentForTests());
afterAll(async () => {
  await pg?.destroy();
  rmSync(dir, { recursive: true, force: true });
});

/** A backend as a command opens it, through a forwarder that notes what each round trip carries. */
async function backendOn(url: string) {
  const target = new URL(url);
  const forwarder = await startForwarder({ host: target.hostname, port: Number(target.port) });
  forwarders.push(forwarder);
  forwarder.state.trace = [];
  target.port = String(forwarder.port);
  const backend = postgresBackend({ url: target.toString(), dir, leadWaitMs: 1000 });
  return { backend, trips: () => forwarder.state.trace as string[] };
}
const forwarders: Array<{ close(): Promise<void> }> = [];
afterAll(async () => {
  for (const f of forwarders) await f.close();
});

const dbName = (url: string) => new URL(url).pathname.slice(1);

describe('the schema check in front of the first statement', () => {
  it('on the current schema: one round trip for the check and the read, the backend ready after it', async () => {
    const url = await pg.createDatabase();
    const setup = postgresBackend({ url, dir, leadWaitMs: 1000 });
    await (await setup.sql()).all('SELECT 1'); // the schema made (the check rides with the first statement)
    await setup.close();
    const { backend, trips } = await backendOn(url);
    const sql = await backend.sql();
    expect(await sql.all('SELECT count(*)::int AS n FROM schedctl_meetings')).toEqual([{ n: 0 }]);
    // The connection's start, then the check and the read together.
    expect(trips()).toHaveLength(2);
    expect(trips()[1]).toMatch(/SELECT 1 \/ \(SELECT count\(\*\) FROM schedctl_meta .*/);
    // Passed: the next statement goes alone.
    await sql.all('SELECT count(*)::int AS n FROM schedctl_attempts');
    expect(trips()).toHaveLength(3);
    expect(trips()[2]).not.toContain('schedctl_meta');
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
    const setup = postgresBackend({ url, dir, leadWaitMs: 1000 });
    await (await setup.sql()).all('SELECT 1'); // the schema made (the check rides with the first statement)
    await setup.close();
    // Schema 3's version row (its tables are a subset: migration 4 adds the workspace tables).
    await pg.psql(
      `UPDATE schedctl_meta SET value = '3' WHERE key = 'schema_version'; DROP TABLE schedctl_workspace_keys; DROP TABLE schedctl_ledger_marks`,
      dbName(url),
    );
    const { backend } = await backendOn(url);
    const sql = await backend.sql();
    await sql.step([[`INSERT INTO schedctl_ledger_marks (mark, at_ms) VALUES (?, ?)`, ["it's \\ ü", 1]]]);
    // (Migration 4 adds a mark of its own.)
    expect(await pg.psql('SELECT mark FROM schedctl_ledger_marks WHERE at_ms = 1', dbName(url))).toBe("it's \\ ü");
    expect(await pg.psql(`SELECT value FROM schedctl_meta WHERE key = 'schema_version'`, dbName(url))).toBe(
      String(SCHEMA_VERSION),
    );
    await backend.close();
  });

  it('on a newer schema: refused, and neither the statement nor a budget draw writes anything', async () => {
    const url = await pg.createDatabase();
    const setup = postgresBackend({ url, dir, leadWaitMs: 1000 });
    await (await setup.sql()).all('SELECT 1'); // the schema made (the check rides with the first statement)
    await setup.close();
    await pg.psql(`UPDATE schedctl_meta SET value = '${SCHEMA_VERSION + 1}' WHERE key = 'schema_version'`, dbName(url));

    const { backend } = await backendOn(url);
    const sql = await backend.sql();
    await expect(
      sql.step([[`INSERT INTO schedctl_ledger_marks (mark, at_ms) VALUES (?, ?)`, ['x', 1]]]),
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
