/**
 * The one thing the ledger's stores need from a database: statements with `?` parameters and
 * transactions. SQLite (sqlite/engine.ts, node:sqlite) and PostgreSQL (postgres/sql.ts, pg) each
 * implement it; the stores (journal.ts, meetings.ts, fires.ts, outcomes.ts, events.ts) write
 * their SQL once, in the subset both dialects agree on (`ON CONFLICT … DO UPDATE`, `RETURNING`,
 * integers for booleans, text for JSON bodies), like Atuin's one `Database` trait.
 */
export type SqlValue = string | number | null;

export interface Sql {
  /** For messages: the database file, or the team database's URL without its password. */
  readonly where: string;
  all<T>(sql: string, params?: readonly SqlValue[]): Promise<T[]>;
  get<T>(sql: string, params?: readonly SqlValue[]): Promise<T | undefined>;
  /** Resolves to the number of rows changed. */
  run(sql: string, params?: readonly SqlValue[]): Promise<number>;
  /**
   * A write whose count is not needed, in a transaction's `tx`: on a team state it goes out with
   * the step's next statement, or with its COMMIT, instead of in a round trip of its own (its
   * failure fails the step there). SQLite runs it at once.
   */
  defer(sql: string, params?: readonly SqlValue[]): void;
  /**
   * A transaction's last statement, in its `tx`: on a team state it goes out with what the step
   * deferred and with the COMMIT, in one round trip. A read's rows, or a write's count of rows
   * changed; nothing may follow it in the step.
   */
  last<T>(sql: string, params?: readonly SqlValue[]): Promise<{ rows: T[]; changes: number }>;
  /**
   * Runs `work` in one transaction (every statement of a step lands, or none): committed when
   * it resolves, rolled back when it throws. Inside, use the `tx` given, not this handle.
   * `oneWrite`: the step writes at most once (a row read, then written back): a database whose
   * reads take their own snapshot in a transaction or out of one (PostgreSQL, READ COMMITTED)
   * then runs it without a transaction block, its one write being atomic by itself; a second
   * write in such a step is a bug, refused.
   */
  transaction<R>(work: (tx: Sql) => Promise<R>, o?: StepOptions): Promise<R>;
}

export interface StepOptions {
  oneWrite?: boolean;
}

/** A store's way to its database: opened (and migrated) on first use, so a command that reads no ledger opens none. */
export type SqlSource = () => Promise<Sql>;
