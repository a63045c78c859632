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
import type { PoolClient, QueryResult } from 'pg';
import type { DatabaseSync } from 'node:sqlite';
import { hasSentUnrepeatable } from '../../api/send-hook.js';
import { isWrite, lastOf } from '../sql/last.js';
import { ledgerTables } from '../sql/tables.js';
import type { Sql, SqlValue } from '../sql/types.js';
import { isConnectionFailure, isGuardFailure, QUERY_TIMEOUT_MS, type Database } from './connect.js';
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
/** A database failure (not a refusal of ours, not a bug): what the spool may stand in for. */
const isKeepable = (error: unknown) =>
  isConnectionFailure(error) || (error as { code?: unknown }).code === 'STATE_UNAVAILABLE';

export interface PgSqlDeps {
  db: Database;
  /** The schema is there and current, what the spool kept applied (once per process). */
  ready: () => Promise<void>;
  /** The schema check to send in front of the first statement, and how it went (backend.ts). */
  takeGuard?: () => string | undefined;
  guardAnswered?: (passed: boolean) => void;
  spool: LedgerSpool;
  /** Told when a step is kept on this machine instead (what it kept). */
  onKept: (error: unknown, statements: SpooledStatement[]) => void;
}

/** The ledger on a transaction's connection, and the way to end its step (clientSql). */
export interface StepSql extends Sql {
  /** Sends what the step deferred (Sql.defer), with its COMMIT when it began a transaction block. */
  finish(): Promise<void>;
  /** Several reads in one round trip (a simple query, their values as literals): the rows of each. */
  allOf(reads: ReadonlyArray<{ text: string; params: readonly SqlValue[] }>): Promise<unknown[][]>;
}

/**
 * A transaction's connection as the ledger (each statement also shown to the mirror, when there
 * is one). `lazy`: the transaction is begun by the first write (lazyTransaction in connect.ts),
 * and says whether it was. A write deferred (Sql.defer) goes out in front of the step's next
 * statement, or at finish() in front of its COMMIT: one simple query of several statements,
 * whose parameters go in as quoted literals (typed by where they stand, as parameters are).
 */
export function clientSql(
  where: string,
  client: PoolClient,
  o: {
    mirror?: Mirror | undefined;
    lazy?: { begun: boolean } | undefined;
    oneWrite?: boolean;
    asyncCommit?: boolean;
    /** A statement to send in front of the step's first (the schema guard): `sent` once it was. */
    guard?: { text: string; sent: boolean } | undefined;
    /** Writes waiting to ride with this step (Sql.later): sent in front of its first statement. */
    riders?: ReadonlyArray<Deferred> | undefined;
  } = {},
): StepSql {
  const { mirror, lazy, oneWrite = false, asyncCommit = false, guard } = o;
  let writes = 0;
  // What the step deferred, each with the way to tell its caller how many rows it changed.
  const pending: Deferred[] = [...(o.riders ?? [])];
  const counted = (text: string) => {
    if (oneWrite && ++writes > 1) throw new Error(`a second write in a one-write step: ${text.trim()}`);
  };
  // BEGIN in front of the step's first write: from there a failure rolls back.
  const opening = () => (lazy && !lazy.begun ? ((lazy.begun = true), 'BEGIN; ') : '');
  // The end of a transaction block: asynchronous (StepOptions) when asked, for this transaction only.
  const commit = `; ${asyncCommit ? 'SET LOCAL synchronous_commit TO off; ' : ''}COMMIT`;
  const guarding = () => guard !== undefined && !guard.sent;
  const several = async (head: string, statements: ReadonlyArray<(typeof pending)[number]>, end = '') => {
    const first = guarding() ? `${guard!.text}; ` : '';
    if (first) guard!.sent = true;
    const text = first + head + statements.map((s) => withLiterals(client, s.text, s.params)).join('; ') + end;
    const answer = (await client.query(text)) as unknown as
      QueryResult<Record<string, unknown>> | Array<QueryResult<Record<string, unknown>>>;
    const results = Array.isArray(answer) ? answer : [answer];
    return first ? results.slice(1) : results;
  };
  // The deferred writes sent, their answers from `from` on: noted for the mirror, counts told.
  const sawWritten = (statements: typeof pending, results: ReadonlyArray<QueryResult>, from: number) => {
    statements.forEach((s, i) => {
      mirror?.saw(s.text, s.params, []);
      s.changed?.(results[from + i]?.rowCount ?? 0);
    });
  };
  const send = async (text: string, params: readonly SqlValue[], write: boolean) => {
    if (write) counted(text);
    if (pending.length === 0 && !(write && lazy && !lazy.begun) && !guarding())
      return client.query(toPg(text), params as SqlValue[]);
    const flushed = pending.splice(0);
    const head = opening();
    const results = await several(head, [...flushed, { text, params }]);
    sawWritten(flushed, results, head ? 1 : 0);
    return results[results.length - 1]!;
  };
  const sql: StepSql = {
    where,
    all: async <T>(text: string, params: readonly SqlValue[] = []) => {
      const rows = (await send(text, params, isWrite(text))).rows as T[];
      mirror?.saw(text, params, rows);
      return rows;
    },
    get: async <T>(text: string, params: readonly SqlValue[] = []) => (await sql.all<T>(text, params))[0],
    run: async (text: string, params: readonly SqlValue[] = []) => {
      const r = await send(text, params, true);
      mirror?.saw(text, params, []);
      return r.rowCount ?? 0;
    },
    defer: (text: string, params: readonly SqlValue[] = []) => {
      counted(text);
      return new Promise<number>((changed) => pending.push({ text, params: [...params], changed }));
    },
    transaction: (work) => work(sql),
    async last<T>(text: string, params: readonly SqlValue[] = []) {
      const write = isWrite(text);
      if (write) counted(text);
      const flushed = pending.splice(0);
      const statements = [...flushed, { text, params: [...params] }];
      // In a transaction block (begun, or to be begun for the writes): BEGIN if not yet, COMMIT
      // after; otherwise the statements alone (one simple query is atomic by itself).
      const inBlock = lazy !== undefined && (lazy.begun || write || flushed.length > 0);
      const head = inBlock ? opening() : '';
      const results = await several(head, statements, inBlock ? commit : '');
      if (lazy) lazy.begun = false;
      // Its answer: after BEGIN's, when sent, and the deferred writes'.
      const answer = results[(head ? 1 : 0) + flushed.length]!;
      sawWritten(flushed, results, head ? 1 : 0);
      mirror?.saw(text, params, write ? [] : answer.rows);
      return { rows: answer.rows as T[], changes: write ? (answer.rowCount ?? 0) : 0 };
    },
    async allOf(reads) {
      const flushed = pending.splice(0);
      const answers = await several('', [...flushed, ...reads]);
      sawWritten(flushed, answers, 0);
      reads.forEach((r, i) => mirror?.saw(r.text, r.params, answers[flushed.length + i]!.rows));
      return answers.slice(flushed.length).map((a) => a.rows);
    },
    async finish() {
      const flushed = pending.splice(0);
      let results: QueryResult[] = [];
      let from = 0;
      if (flushed.length === 0) {
        if (lazy?.begun) await several('', [], commit.slice(2));
      } else if (!lazy || (!lazy.begun && flushed.length === 1 && !asyncCommit)) {
        // Without a transaction block, or the step's one write: a statement is atomic by itself.
        results = await several('', flushed);
      } else {
        const head = opening();
        results = await several(head, flushed, commit);
        from = head ? 1 : 0;
      }
      if (lazy) lazy.begun = false;
      sawWritten(flushed, results, from);
    },
  };
  return sql;
}

/** A write sent with a step's next statement, and the way to tell its caller how many rows it changed. */
interface Deferred {
  text: string;
  params: readonly SqlValue[];
  changed?: (n: number) => void;
}

/** `work` on a connection whose transaction the caller holds (connect.ts transaction): what it deferred sent before it returns. */
export async function onClient<R>(where: string, client: PoolClient, work: (tx: Sql) => Promise<R>): Promise<R> {
  const tx = clientSql(where, client);
  const result = await work(tx);
  await tx.finish();
  return result;
}

/** The statement with each `?` replaced by its value as a quoted literal (NULL for null). */
export function withLiterals(
  client: Pick<PoolClient, 'escapeLiteral'>,
  text: string,
  params: readonly SqlValue[],
): string {
  let n = 0;
  return text.replace(/\?/g, () => {
    const value = params[n++];
    return value === null || value === undefined ? 'NULL' : client.escapeLiteral(String(value));
  });
}

export function pgSql(deps: PgSqlDeps): Sql {
  const { db } = deps;
  const mirror = new Mirror();

  // A database that has just let a query or a connection time out (stopped, or a network that
  // drops packets) is not waited for again for as long as one timeout: a command's later steps
  // fail at once instead of each waiting its own (docs/team-state.md bounds the wait). A refused
  // connection fails at once anyway, and a long-lived process (MCP) tries again after the window.
  let stalled: { error: unknown; until: number } | undefined;
  // Writes waiting to ride with the next writing step (Sql.later), each group told its counts once it landed.
  let riding: Rider[] = [];
  const settling = new Set<Promise<unknown>>();
  /** The riders as a step's deferred writes, their counts gathered in `counts` (told only once the step has landed). */
  const seeded = (riders: Rider[], counts: number[][]): Deferred[] =>
    riders.flatMap((r, g) =>
      r.writes.map(([text, params], i) => ({ text, params, changed: (n: number) => ((counts[g] ??= [])[i] = n) })),
    );
  const landed = (riders: Rider[], counts: number[][]) =>
    riders.forEach((r, g) => r.landed(r.writes.map((_, i) => counts[g]?.[i] ?? 0)));
  // `single`: one statement, a transaction of its own; `oneWrite`: reads and at most one write
  // (Sql.transaction says why neither needs a transaction block). Otherwise BEGIN goes out with
  // the step's first write, and a step that only reads sends neither BEGIN nor COMMIT.
  async function step<R>(
    work: (tx: Sql) => Promise<R>,
    write: boolean,
    single = false,
    oneWrite = false,
    asyncCommit = false,
  ): Promise<R> {
    // Every step carries what waits to ride (Sql.later), in its transaction: a read then sees
    // this process's own writes, as it would had they been sent alone.
    const riders = riding.splice(0);
    let counts: number[][] = [];
    // flush() waits for a step carrying riders (another caller's, in a long-lived process).
    let carried: () => void = () => {};
    if (riders.length > 0) {
      const carrying = new Promise<void>((resolve) => (carried = resolve));
      settling.add(carrying);
      void carrying.then(() => settling.delete(carrying));
    }
    const run = (guard?: { text: string; sent: boolean }) =>
      db.lazyTransaction(async (client, lazy) => {
        counts = [];
        const tx = clientSql(db.where, client, {
          mirror,
          lazy: single || oneWrite ? undefined : lazy,
          oneWrite,
          asyncCommit,
          guard,
          riders: seeded(riders, counts),
        });
        const result = await work(tx);
        await tx.finish();
        return result;
      });
    try {
      const result = await guarded(run);
      landed(riders, counts);
      return result;
    } catch (error) {
      return await otherwise(error);
    } finally {
      carried();
    }
    async function otherwise(error: unknown): Promise<R> {
      if (isTimeout(error) && error !== stalled?.error) stalled = { error, until: Date.now() + QUERY_TIMEOUT_MS };
      // A read is never answered from the mirror (it holds only what this process saw): what
      // rode with it waits for the next step (or the flush), which keeps it if it must.
      if (!write || !hasSentUnrepeatable() || !isKeepable(error)) {
        riding = [...riders, ...riding];
        throw asFailure(error);
      }
      const kept: SpooledStatement[] = [];
      const mirrored = await mirror.capturing(kept);
      const riderCounts = await Promise.all(
        riders.map(async (r) => Promise.all(r.writes.map(([text, params]) => mirrored.run(text, params)))),
      );
      const result = await work(mirrored);
      if (kept.length) {
        await deps.spool.keep(kept);
        deps.onKept(error, kept);
      }
      riders.forEach((r, g) => r.landed(riderCounts[g]!));
      return result;
    }
  }

  /** `run`, with the command's first statement carrying the schema check (backend.ts takeGuard). */
  async function guarded<R>(run: (guard?: { text: string; sent: boolean }) => Promise<R>): Promise<R> {
    if (stalled && Date.now() < stalled.until) throw stalled.error;
    // The command's first statement carries the schema check (backend.ts takeGuard).
    const text = deps.takeGuard?.();
    if (text === undefined) {
      await deps.ready();
      return await run();
    }
    const guard = { text, sent: false };
    try {
      const result = await run(guard);
      deps.guardAnswered?.(guard.sent);
      return result;
    } catch (error) {
      // An error after the guard's answer came from a statement behind it: the guard passed.
      const passed = guard.sent && !isGuardFailure(error) && !isConnectionFailure(error);
      deps.guardAnswered?.(passed);
      if (passed || !guard.sent) throw error;
      // Another version, no schema yet, or no answer: the full check (migrating, or refusing a
      // newer schema), then the step again: nothing of it ran behind the failed guard.
      await deps.ready();
      return await run();
    }
  }

  const asFailure = (error: unknown): unknown =>
    error instanceof Error && 'exitCode' in error ? error : db.unavailable(error);

  // Reads asked at the same moment (in a Promise.all, say: a lead's meetings and attempts) go out
  // together, in one round trip. Gathered until the microtasks under way have run (setImmediate),
  // so reads whose callers await a different number of steps before asking still meet.
  let gathering:
    | Array<{
        text: string;
        params: readonly SqlValue[];
        done: (rows: unknown[]) => void;
        failed: (e: unknown) => void;
      }>
    | undefined;
  const read = <T>(text: string, params: readonly SqlValue[]): Promise<T[]> =>
    new Promise<T[]>((resolve, reject) => {
      if (!gathering) {
        gathering = [];
        setImmediate(sendGathered);
      }
      gathering.push({ text, params, done: resolve as (rows: unknown[]) => void, failed: reject });
    });
  const sendGathered = () => {
    const reads = gathering!;
    gathering = undefined;
    const asked =
      reads.length === 1
        ? step(async (tx) => [await tx.all(reads[0]!.text, reads[0]!.params)], false, true)
        : // A read step runs on the connection only (never on the mirror): its tx is clientSql's.
          step((tx) => (tx as StepSql).allOf(reads), false, true);
    asked.then(
      (rows) => reads.forEach((r, i) => r.done(rows[i]!)),
      (error: unknown) => reads.forEach((r) => r.failed(error)),
    );
  };

  return {
    where: db.where,
    all: <T>(text: string, params: readonly SqlValue[] = []) =>
      isWrite(text) ? step((tx) => tx.all<T>(text, params), true, true) : read<T>(text, params),
    get: async <T>(text: string, params: readonly SqlValue[] = []) =>
      isWrite(text) ? step((tx) => tx.get<T>(text, params), true, true) : (await read<T>(text, params))[0],
    run: (text: string, params: readonly SqlValue[] = []) => step((tx) => tx.run(text, params), true, true),
    defer: () => {
      throw new Error("Sql.defer is for a transaction's tx");
    },
    last: <T>(text: string, params: readonly SqlValue[] = []) =>
      step((tx) => tx.last<T>(text, params), isWrite(text), true),
    // A transaction that only reads is not kept: nothing of it needs saving.
    transaction: (work, o) => step(work, true, false, o?.oneWrite === true, o?.asyncCommit === true),
    later(writes, then) {
      riding.push({
        writes: writes.map(([text, params]) => [text, [...params]] as const),
        landed: (counts) => {
          // What landing starts (a store's slower way for a write that changed no row) is waited for by flush().
          const after = Promise.resolve()
            .then(() => then?.(counts))
            .catch(() => {});
          settling.add(after);
          void after.finally(() => settling.delete(after));
        },
      });
    },
    async flush() {
      // Steps already carrying some (they may fail and leave them waiting again), then what
      // waits, alone (BEGIN and COMMIT around it when it is more than one write), then what
      // their landing started.
      await Promise.all(settling);
      if (riding.length > 0) await step(async () => undefined, true);
      await Promise.all(settling);
    },
  };
}

/** Writes waiting to ride with a step (Sql.later), and the way to tell their caller their counts. */
interface Rider {
  writes: ReadonlyArray<readonly [string, readonly SqlValue[]]>;
  landed: (counts: number[]) => void;
}

/**
 * This process's copy of the rows it wrote (every write statement, replayed: the SQL is the same
 * in both dialects) and of the rows it read whole (`SELECT *` of a few rows). What it sees is
 * only noted as it comes; the copy (an in-memory database, node:sqlite) is made from the notes
 * when a step must be kept on this machine, which is rare: a command whose database answers
 * never loads it.
 */
export class Mirror {
  private db: DatabaseSync | undefined;
  /** Seen and not yet copied, in order. */
  private notes: Array<{ sql: string; params: readonly SqlValue[]; rows: unknown[] }> = [];

  private async open(): Promise<DatabaseSync> {
    if (!this.db) {
      const { DatabaseSync } = await import('node:sqlite');
      const db = new DatabaseSync(':memory:');
      for (const sql of ledgerTables('integer PRIMARY KEY AUTOINCREMENT', 'integer')) db.exec(sql);
      this.db = db;
    }
    const notes = this.notes;
    this.notes = [];
    for (const n of notes)
      try {
        copy(this.db, n.sql, n.params, n.rows);
      } catch {
        // The mirror is a best effort for a failure to come: a note it cannot take is left out.
      }
    return this.db;
  }

  /** Notes what a step that worked sent or read (only what the copy keeps). */
  saw(sql: string, params: readonly SqlValue[], rows: unknown[]): void {
    if (isWrite(sql) || (rows.length > 0 && rows.length <= MIRRORED_ROWS && WHOLE_ROWS.test(sql)))
      this.notes.push({ sql, params: [...params], rows });
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
      // Run at once, a failure thrown as it happens (fails the work), as SQLite's own defer does.
      defer: (text: string, params: readonly SqlValue[] = []) => {
        kept.push({ sql: text, params: [...params] });
        return Promise.resolve(Number(db.prepare(text).run(...params).changes));
      },
      last: async <T>(text: string, params: readonly SqlValue[] = []) => {
        if (isWrite(text)) kept.push({ sql: text, params: [...params] });
        return lastOf<T>(db.prepare(text), text, params);
      },
      transaction: (work) => work(sql),
    };
    return sql;
  }
}

/** A read of whole rows of a ledger table: its rows are copied. */
const WHOLE_ROWS = /^\s*SELECT \* FROM (schedctl_\w+)/i;
/** More rows than this in one read are a listing, not a lead's record: not copied. */
const MIRRORED_ROWS = 50;

function copy(db: DatabaseSync, sql: string, params: readonly SqlValue[], rows: unknown[]): void {
  if (isWrite(sql)) {
    // RETURNING rows are not wanted here, only the change.
    db.prepare(sql).all(...params);
    return;
  }
  const table = WHOLE_ROWS.exec(sql)?.[1];
  if (!table) return;
  for (const row of rows as Record<string, SqlValue>[]) {
    const cols = Object.keys(row);
    db.prepare(`INSERT OR REPLACE INTO ${table} (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`).run(
      ...cols.map((c) => row[c] ?? null),
    );
  }
}
