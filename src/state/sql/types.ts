/**
 * The one thing the ledger's stores need from a database: statements with `?` parameters, and
 * steps of them. SQLite (sqlite/engine.ts, node:sqlite) and PostgreSQL (postgres/sql.ts, pg)
 * each implement it; the stores (journal.ts, meetings.ts, fires.ts, outcomes.ts, events.ts)
 * write their SQL once, in the subset both dialects agree on (`ON CONFLICT … DO UPDATE`,
 * `RETURNING`, integers for booleans, text for JSON bodies), like Atuin's one `Database` trait.
 */
export type SqlValue = string | number | null;

/** A statement and its values. */
export type Statement = readonly [text: string, params?: readonly SqlValue[]];

/** What one statement of a step answered: its rows (a read's, or RETURNING's) and the rows it changed. */
export interface Answer<T = Record<string, unknown>> {
  rows: T[];
  changes: number;
}

export interface Sql {
  /** For messages: the database file, or the team database's URL without its password. */
  readonly where: string;
  /** One statement: its rows (a write's with RETURNING). */
  all<T>(sql: string, params?: readonly SqlValue[]): Promise<T[]>;
  /** One statement: the number of rows it changed. */
  run(sql: string, params?: readonly SqlValue[]): Promise<number>;
  /**
   * Statements in one transaction, sent together (one round trip on a team state): each one's
   * answer, in order; all of them land, or none. In a transaction's `tx`, the transaction's
   * last statements (on a team state they go with its COMMIT): nothing may follow them there.
   */
  step(statements: readonly Statement[]): Promise<Answer[]>;
  /**
   * Runs `work` in one transaction (reads whose answers decide the writes, ending in a `step`):
   * committed when it resolves, rolled back when it throws. Inside, use the `tx` given.
   */
  transaction<R>(work: (tx: Sql) => Promise<R>): Promise<R>;
}

/** The first row of one statement, if any. */
export async function get<T>(sql: Sql, text: string, params?: readonly SqlValue[]): Promise<T | undefined> {
  return (await sql.all<T>(text, params))[0];
}

/** A store's way to its database: opened (and migrated) on first use, so a command that reads no ledger opens none. */
export type SqlSource = () => Promise<Sql>;
