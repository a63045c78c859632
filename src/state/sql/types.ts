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
   * failure fails the step there). SQLite runs it at once. Resolves to the number of rows it
   * changed once it was sent (await it after the step's `last`, never before: it goes out with
   * that); never rejects (the step fails instead).
   */
  defer(sql: string, params?: readonly SqlValue[]): Promise<number>;
  /**
   * A transaction's last statement, in its `tx`: on a team state it goes out with what the step
   * deferred and with the COMMIT, in one round trip. Its rows (a read's, or RETURNING's), and a
   * write's count of rows changed; nothing may follow it in the step.
   */
  last<T>(sql: string, params?: readonly SqlValue[]): Promise<{ rows: T[]; changes: number }>;
  /**
   * Runs `work` in one transaction (every statement of a step lands, or none): committed when
   * it resolves, rolled back when it throws. Inside, use the `tx` given, not this handle.
   * `oneWrite`: the step writes at most once (a row read, then written back): a database whose
   * reads take their own snapshot in a transaction or out of one (PostgreSQL, READ COMMITTED)
   * then runs it without a transaction block, its one write being atomic by itself; a second
   * write in such a step is a bug, refused.
   * `asyncCommit`: what the step defers (or sends last) need not be on the database's disk when
   * it resolves (PostgreSQL's asynchronous commit, for that transaction). See StepOptions.
   */
  transaction<R>(work: (tx: Sql) => Promise<R>, o?: StepOptions): Promise<R>;
  /**
   * Writes whose loss the ledger's rules survive (StepOptions.asyncCommit says which: what an
   * answered request did), on a team state sent in front of this process's next writing step,
   * in its transaction, instead of in a round trip of their own; `flush()` (and the ledger's
   * close) sends what is still waiting. `landed` hears each write's count of rows changed once
   * they landed (a carrier that failed leaves them waiting for the next). Absent where a write
   * costs no round trip (SQLite): write at once there.
   */
  later?(
    writes: ReadonlyArray<readonly [string, readonly SqlValue[]]>,
    landed?: (counts: number[]) => Promise<unknown> | void,
  ): void;
  /** Sends the writes still waiting (later), in a step of their own, and waits for what their landing started. */
  flush?(): Promise<void>;
}

export interface StepOptions {
  oneWrite?: boolean;
  /**
   * The step's commit does not wait for the database's disk (PostgreSQL's asynchronous commit;
   * SQLite ignores it). A crash of the database server may then lose it, and whatever else was
   * not yet on disk, never a step committed before a synchronous one (the server's log keeps
   * their order). Only for a step whose loss the ledger's rules already survive as if schedctl
   * had been killed right before it: one followed, before any request that must not be
   * repeated is sent, by the synchronous step marking that request sent (an attempt begun, a
   * fire prepared), or one recording what an answered request did (a fire answered and its
   * outcome, a booking's meeting and outcome: lost, the attempt stays sent with its outcome
   * unknown, and a re-run resolves it without booking again). Marking a request sent never is.
   */
  asyncCommit?: boolean;
}

/** A store's way to its database: opened (and migrated) on first use, so a command that reads no ledger opens none. */
export type SqlSource = () => Promise<Sql>;
