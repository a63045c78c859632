/**
 * The team database's schema: created on first use, versioned in `schedctl_meta`. A newer
 * schedctl migrates an older schema (under a transaction-level advisory lock, so two machines
 * starting together do not race); an older schedctl refuses a newer schema and writes nothing.
 */
import type { PoolClient } from 'pg';
import type { Database } from './connect.js';

export const SCHEMA_VERSION = 2;

const META_TABLE = `CREATE TABLE IF NOT EXISTS schedctl_meta (key text PRIMARY KEY, value text NOT NULL)`;

/** Migration N brings the schema from version N-1 to N. Never edit one that has shipped: add the next. */
const MIGRATIONS: Record<number, string[]> = {
  1: [
    META_TABLE,
    // One row per ledger document (journal, meetings, outcomes, fires, events): the same
    // documents as the local files, each read-modify-written under its row lock.
    `CREATE TABLE IF NOT EXISTS schedctl_documents (
       kind text PRIMARY KEY, body jsonb NOT NULL, updated_at timestamptz NOT NULL DEFAULT now())`,
    // Who holds each lead or meeting lock (the lock itself is a session advisory lock).
    `CREATE TABLE IF NOT EXISTS schedctl_locks (
       name text PRIMARY KEY, lock_key bigint NOT NULL, backend_pid integer NOT NULL, owner jsonb NOT NULL)`,
    // One request budget per API key fingerprint (never the key), shared by every machine.
    `CREATE TABLE IF NOT EXISTS schedctl_rate_budgets (
       budget_id text PRIMARY KEY, state jsonb NOT NULL, updated_at timestamptz NOT NULL DEFAULT now())`,
  ],
  2: [
    // The run logs of bulk files (bulk/run-log.ts): one row per record, in the order appended,
    // keyed like the local files (the input's content hash with `command:workspace`).
    `CREATE TABLE IF NOT EXISTS schedctl_run_records (
       log_key text NOT NULL, seq bigserial NOT NULL, record jsonb NOT NULL,
       at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (log_key, seq))`,
  ],
};

/** A fixed key for the migration lock (any bigint other tools are unlikely to use). */
const MIGRATION_LOCK = 7_291_604_118_375_502_001n;

export class SchemaTooNewError extends Error {
  constructor(readonly found: number) {
    super(`its schedctl schema is version ${found}, newer than this schedctl's ${SCHEMA_VERSION}`);
  }
}

export async function schemaVersion(client: Pick<PoolClient, 'query'>): Promise<number | undefined> {
  try {
    const r = await client.query<{ value: string }>(`SELECT value FROM schedctl_meta WHERE key = 'schema_version'`);
    const v = r.rows[0]?.value;
    return v === undefined ? 0 : Number(v);
  } catch (error) {
    if ((error as { code?: string }).code === '42P01') return undefined; // no table yet
    throw error;
  }
}

/** Makes sure the schema is there and current; resolves to its version. One query when it is. */
export async function ensureSchema(db: Database): Promise<number> {
  const pool = await db.pool();
  // The early connection's answer when it has one (early.ts), else asked now.
  const found = await (db.earlyVersion ?? Promise.reject(new Error('none'))).catch(() => schemaVersion(pool));
  if (found !== undefined && found > SCHEMA_VERSION) throw new SchemaTooNewError(found);
  if (found === SCHEMA_VERSION) return found;
  return db.transaction(async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK.toString()]);
    // Made first: a failed query would abort the transaction, so "no table yet" is never asked.
    await client.query(META_TABLE);
    const now = (await schemaVersion(client)) ?? 0;
    if (now > SCHEMA_VERSION) throw new SchemaTooNewError(now);
    for (let v = now + 1; v <= SCHEMA_VERSION; v++) for (const sql of MIGRATIONS[v] ?? []) await client.query(sql);
    await client.query(
      `INSERT INTO schedctl_meta (key, value) VALUES ('schema_version', $1)
       ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`,
      [String(SCHEMA_VERSION)],
    );
    return SCHEMA_VERSION;
  });
}
