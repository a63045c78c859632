/**
 * The ledger's tables in the team database, as the stores see them (sql/types.ts): `?` becomes
 * `$n`, each store step one transaction on a pooled connection, and no lock shared by two leads
 * (row writes only: bookings of different leads never wait on each other).
 *
 * When the database fails after this process sent a request that must not be repeated, the
 * step's outcome must not be lost: the step runs again against this process's mirror (an
 * in-memory SQLite with the same tables, holding every row this process wrote or read one at a
 * time) and the write statements it makes are kept on this machine (ledger-spool.ts), to be
 * applied to the database, in order, by the next run. A statement carries its whole row (an
 * upsert) or names what it removes (a delete): what is kept carries every change, removals too.
 */
import type { PoolClient } from 'pg';
import type { DatabaseSync } from 'node:sqlite';
import { hasSentUnrepeatable } from '../../api/send-hook.js';
import { ledgerTables } from '../sql/tables.js';
import type { Sql, SqlValue } from '../sql/types.js';
import { isConnectionFailure, QUERY_TIMEOUT_MS, type Database } from './connect.js';
import type { LedgerSpool, SpooledStatement } from './ledger-spool.js';

const placeholders = new Map<string, string>();
/** `?` → `$1, $2, …` (the ledger's SQL has no `?` inside a string). */
export function toPg(sql: string): string {
  let text = placeholders.get(sql);
  if (text === undefined) {
    let n = 0;
    text = sql.replace(/\?/g, () => `$${++n}`);
    placeholders.set(sql, text);
  }
  return text;
}

const isTimeout = (error: unknown) =>
  error instanceof Error &&
  /timeout|timed out/i.test(`${error.message} ${String((error as { cause?: unknown }).cause ?? '')}`);
const isWrite = (sql: string) => /^\s*(INSERT|UPDATE|DELETE)\b/i.test(sql);
/** A database failure (not a refusal of ours, not a bug): what the spool may stand in for. */
const isKeepable = (error: unknown) =>
  isConnectionFailure(error) || (error as { code?: unknown }).code === 'STATE_UNAVAILABLE';

export interface PgSqlDeps {
  db: Database;
  /** The schema is there and current, what the spool kept applied (once per process). */
  ready: () => Promise<void>;
  spool: LedgerSpool;
  /** Told when a step is kept on this machine instead (what it kept). */
  onKept: (error: unknown, statements: SpooledStatement[]) => void;
}

/** A transaction's connection as the ledger (each statement also shown to the mirror, when there is one). */
export function clientSql(where: string, client: PoolClient, mirror?: Mirror): Sql {
  const sql: Sql = {
    where,
    all: async <T>(text: string, params: readonly SqlValue[] = []) => {
      const rows = (await client.query(toPg(text), params as SqlValue[])).rows as T[];
      await mirror?.saw(text, params, rows);
      return rows;
    },
    get: async <T>(text: string, params: readonly SqlValue[] = []) => (await sql.all<T>(text, params))[0],
    run: async (text: string, params: readonly SqlValue[] = []) => {
      const r = await client.query(toPg(text), params as SqlValue[]);
      await mirror?.saw(text, params, []);
      return r.rowCount ?? 0;
    },
    transaction: (work) => work(sql),
  };
  return sql;
}

export function pgSql(deps: PgSqlDeps): Sql {
  const { db } = deps;
  const mirror = new Mirror();
  const onClient = (client: PoolClient) => clientSql(db.where, client, mirror);

  // A database that has just let a query or a connection time out (stopped, or a network that
  // drops packets) is not waited for again for as long as one timeout: a command's later steps
  // fail at once instead of each waiting its own (docs/team-state.md bounds the wait). A refused
  // connection fails at once anyway, and a long-lived process (MCP) tries again after the window.
  let stalled: { error: unknown; until: number } | undefined;
  async function step<R>(work: (tx: Sql) => Promise<R>, write: boolean): Promise<R> {
    try {
      if (stalled && Date.now() < stalled.until) throw stalled.error;
      await deps.ready();
      return await db.transaction((client) => work(onClient(client)));
    } catch (error) {
      if (isTimeout(error) && error !== stalled?.error) stalled = { error, until: Date.now() + QUERY_TIMEOUT_MS };
      if (!write || !hasSentUnrepeatable() || !isKeepable(error)) throw asFailure(error);
      const kept: SpooledStatement[] = [];
      const result = await work(await mirror.capturing(kept));
      if (kept.length) {
        await deps.spool.keep(kept);
        deps.onKept(error, kept);
      }
      return result;
    }
  }

  const asFailure = (error: unknown): unknown =>
    error instanceof Error && 'exitCode' in error ? error : db.unavailable(error);

  return {
    where: db.where,
    all: <T>(text: string, params: readonly SqlValue[] = []) => step((tx) => tx.all<T>(text, params), isWrite(text)),
    get: <T>(text: string, params: readonly SqlValue[] = []) => step((tx) => tx.get<T>(text, params), isWrite(text)),
    run: (text: string, params: readonly SqlValue[] = []) => step((tx) => tx.run(text, params), true),
    // A transaction that only reads is not kept: nothing of it needs saving.
    transaction: (work) => step(work, true),
  };
}

/**
 * This process's copy of the rows it wrote (every write statement, replayed: the SQL is the same
 * in both dialects) and of the rows it read whole (`SELECT *` of a few rows). Loaded only with a
 * team state (node:sqlite).
 */
export class Mirror {
  private db: DatabaseSync | undefined;

  private async open(): Promise<DatabaseSync> {
    if (this.db) return this.db;
    const { DatabaseSync } = await import('node:sqlite');
    const db = new DatabaseSync(':memory:');
    for (const sql of ledgerTables('integer PRIMARY KEY AUTOINCREMENT', 'integer')) db.exec(sql);
    return (this.db = db);
  }

  async saw(sql: string, params: readonly SqlValue[], rows: unknown[]): Promise<void> {
    try {
      await this.copy(sql, params, rows);
    } catch {
      // The mirror is a best effort for a failure to come: it never fails a step that worked.
    }
  }

  private async copy(sql: string, params: readonly SqlValue[], rows: unknown[]): Promise<void> {
    if (isWrite(sql)) {
      const db = await this.open();
      // RETURNING rows are not wanted here, only the change.
      db.prepare(sql).all(...params);
      return;
    }
    const table = /^\s*SELECT \* FROM (schedctl_\w+)/i.exec(sql)?.[1];
    if (!table || rows.length === 0 || rows.length > 50) return;
    const db = await this.open();
    for (const row of rows as Record<string, SqlValue>[]) {
      const cols = Object.keys(row);
      db.prepare(`INSERT OR REPLACE INTO ${table} (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`).run(
        ...cols.map((c) => row[c] ?? null),
      );
    }
  }

  /** The mirror as the ledger, with every write statement also appended to `kept`. */
  async capturing(kept: SpooledStatement[]): Promise<Sql> {
    const db = await this.open();
    const sql: Sql = {
      where: 'this machine',
      all: async <T>(text: string, params: readonly SqlValue[] = []) => {
        if (isWrite(text)) kept.push({ sql: text, params: [...params] });
        return db.prepare(text).all(...params) as T[];
      },
      get: async <T>(text: string, params: readonly SqlValue[] = []) => (await sql.all<T>(text, params))[0],
      run: async (text: string, params: readonly SqlValue[] = []) => {
        kept.push({ sql: text, params: [...params] });
        return Number(db.prepare(text).run(...params).changes);
      },
      transaction: (work) => work(sql),
    };
    return sql;
  }
}
