/**
 * This machine's rate budgets (api/rate-budget.ts keeps the rule): the team state's table
 * `schedctl_rate_budgets`, in a database of its own beside the ledger, `rate-budgets.db`. A
 * cache, not a record: its writes wait for no disk (`synchronous = OFF`) and it has a rollback
 * journal, not a write-ahead log, so closing it has nothing to checkpoint. In the ledger's file
 * the draw of a one-request command cost 3 ms, nearly all of it the checkpoint's fsyncs at exit
 * (docs/performance.md); here it costs under a millisecond. A damaged file is made anew (a
 * budget forgotten is what the server's 429 and Retry-After cover), and a database that cannot
 * be used at all is the store's to survive (sharedOrMemory counts this process's requests only).
 */
import { closeSync, existsSync, openSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { ensureDir } from '../disk.js';
import type { Sql, SqlValue } from '../sql/types.js';
import { loadSqlite } from './engine.js';
import { inTransaction } from './migrate.js';

export const RATE_DB = 'rate-budgets.db';

const SCHEMA = `CREATE TABLE IF NOT EXISTS schedctl_rate_budgets (
  budget_id text PRIMARY KEY, state text NOT NULL, updated_ms integer NOT NULL)`;

/** SQLite's codes for a file that is not (or no longer) a readable database. */
const CORRUPT = 11;
const NOTADB = 26;

export interface RateCache {
  readonly where: string;
  all<T>(sql: string, params?: readonly SqlValue[]): Promise<T[]>;
  /** One BEGIN IMMEDIATE transaction: several processes draw from one budget, in turn. */
  transaction<R>(work: (tx: Sql) => Promise<R>): Promise<R>;
  close(): void;
}

/** One per config directory in a process (one connection: its busy wait blocks this thread). */
const open = new Map<string, RateCache>();

export function rateCache(dir: string, busyMs: number): RateCache {
  const where = join(dir, RATE_DB);
  let cache = open.get(where);
  if (!cache) open.set(where, (cache = new Cache(dir, where, busyMs)));
  return cache;
}

class Cache implements RateCache {
  private db: DatabaseSync | undefined;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly dir: string,
    readonly where: string,
    private readonly busyMs: number,
  ) {}

  all<T>(sql: string, params: readonly SqlValue[] = []): Promise<T[]> {
    return this.serial(async () => (await this.connection()).prepare(sql).all(...params) as T[]);
  }

  transaction<R>(work: (tx: Sql) => Promise<R>): Promise<R> {
    return this.serial(async () => {
      const db = await this.connection();
      db.exec('BEGIN IMMEDIATE');
      try {
        const result = await work(inTransaction(db, this.where));
        db.exec('COMMIT');
        return result;
      } catch (error) {
        if (db.isTransaction) db.exec('ROLLBACK');
        throw error;
      }
    });
  }

  close(): void {
    this.db?.close();
    this.db = undefined;
    open.delete(this.where);
  }

  private serial<T>(step: () => Promise<T>): Promise<T> {
    const next = this.queue.then(step, step);
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async connection(): Promise<DatabaseSync> {
    if (this.db) return this.db;
    const { DatabaseSync } = await loadSqlite();
    ensureDir(this.dir);
    closeSync(openSync(this.where, 'a', 0o600));
    try {
      this.db = prepare(new DatabaseSync(this.where), this.busyMs);
    } catch (error) {
      const code = ((error as { errcode?: number }).errcode ?? 0) & 0xff;
      if (code !== CORRUPT && code !== NOTADB) throw error;
      // Damaged (a crash while the disk was not waited for): a cache is made anew.
      rmSync(this.where, { force: true });
      rmSync(`${this.where}-journal`, { force: true });
      closeSync(openSync(this.where, 'a', 0o600));
      this.db = prepare(new DatabaseSync(this.where), this.busyMs);
    }
    return this.db;
  }
}

function prepare(db: DatabaseSync, busyMs: number): DatabaseSync {
  try {
    db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.round(busyMs))}`);
    db.exec('PRAGMA journal_mode = TRUNCATE');
    db.exec('PRAGMA synchronous = OFF');
    db.exec(SCHEMA);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/** How many budgets the cache holds (`state status`), read without creating or writing anything; 0 when none can be read. */
export async function countRateBudgets(dir: string): Promise<number> {
  const where = join(dir, RATE_DB);
  if (!existsSync(where)) return 0;
  const { DatabaseSync } = await loadSqlite();
  try {
    const db = new DatabaseSync(where, { readOnly: true });
    try {
      return Number((db.prepare('SELECT count(*) AS n FROM schedctl_rate_budgets').get() as { n: number }).n);
    } finally {
      db.close();
    }
  } catch {
    return 0;
  }
}
