/**
 * The ledger's tables in the team database, as the stores see them (sql/types.ts): `?` becomes
 * `$n`, each store step one transaction on the command's connection (connect.ts), its
 * statements written as they are asked (pg's pipeline mode), so a step the stores send together
 * is one round trip whatever its length. No lock shared by two leads: row writes only.
 *
 * When the database fails after this process sent a request that must not be repeated, the
 * step's outcome must not be lost: its write statements are kept on this machine
 * (ledger-spool.ts), to be applied to the database, in order, by the next run. A statement
 * carries its whole row (an upsert) or names what it removes. The step's own code is run again
 * to learn them, each statement it had already been answered answered again the same way (no
 * copy of the database is kept: a step that needs an answer it never got is not kept, and fails).
 */
import type { Client, QueryResult } from 'pg';
import { hasSentUnrepeatable } from '../../api/send-hook.js';
import { isWrite } from '../sql/last.js';
import type { Sql, SqlValue } from '../sql/types.js';
import { isConnectionFailure, toPg, type Database } from './connect.js';
import type { LedgerSpool, SpooledStatement } from './ledger-spool.js';

export { toPg };

/** A database failure (not a refusal of ours, not a bug): what the spool may stand in for. */
const isKeepable = (error: unknown) =>
  isConnectionFailure(error) || (error as { code?: unknown }).code === 'STATE_UNAVAILABLE';

export interface PgSqlDeps {
  db: Database;
  /** The schema is there and current (or its check rides with the first statements), what the spool kept applied. */
  ready: () => Promise<void>;
  spool: LedgerSpool;
  /** Told when a step is kept on this machine instead (what it kept). */
  onKept: (error: unknown, statements: SpooledStatement[]) => void;
}

/** What one statement of a step was answered (a replay answers it the same way). */
interface Answered {
  rows: unknown[];
  changes: number;
}

/**
 * A step's `tx` on a connection: each statement written at once, its answer noted (`answers`).
 * `defer` is a statement not waited for (its count resolves once answered); `last` writes the
 * COMMIT right behind its statement. `replay`: the step run again without the database, for
 * the spool: statements answered before are answered the same, new writes count one row.
 */
function stepSql(
  where: string,
  send: ((text: string, params: readonly SqlValue[]) => Promise<QueryResult>) | undefined,
  answers: Answered[],
  writes: SpooledStatement[],
  o: { oneWrite: boolean; end: () => Promise<unknown> | undefined },
): Sql & { settled(): Promise<void> } {
  let n = 0;
  let written = 0;
  const sent: Array<Promise<unknown>> = [];
  const one = async (text: string, params: readonly SqlValue[] = []): Promise<Answered> => {
    const write = isWrite(text);
    if (write && o.oneWrite && ++written > 1) throw new Error(`a second write in a one-write step: ${text.trim()}`);
    if (write) writes.push({ sql: text, params: [...params] });
    const at = n++;
    const known = answers[at];
    if (known) return known;
    if (!send) {
      // A replay past what was answered: a write counts as landed (it is kept), a read cannot be known.
      if (write) return { rows: [], changes: 1 };
      throw new Error('the step needs an answer the database never gave');
    }
    const answer = send(toPg(text), params).then(
      (r) => (answers[at] = { rows: r.rows, changes: write ? (r.rowCount ?? 0) : 0 }),
    );
    sent.push(answer);
    return answer;
  };
  const tx: Sql & { settled(): Promise<void> } = {
    where,
    /** Every statement answered: the first failure thrown (a deferred write's, say). */
    async settled() {
      const failed = (await Promise.allSettled(sent)).find((a) => a.status === 'rejected');
      if (failed) throw (failed as PromiseRejectedResult).reason;
    },
    all: async <T>(text: string, params?: readonly SqlValue[]) => (await one(text, params)).rows as T[],
    get: async <T>(text: string, params?: readonly SqlValue[]) => (await one(text, params)).rows[0] as T | undefined,
    run: async (text, params) => (await one(text, params)).changes,
    defer: (text, params) => {
      const answer = one(text, params).then((a) => a.changes);
      answer.catch(() => {});
      return answer;
    },
    async last<T>(text: string, params?: readonly SqlValue[]) {
      const answer = one(text, params);
      const ending = o.end();
      answer.catch(() => {});
      await Promise.all([answer, ending, ...sent]);
      const a = await answer;
      return { rows: a.rows as T[], changes: a.changes };
    },
    transaction: (work) => work(tx),
  };
  return tx;
}

export function pgSql(deps: PgSqlDeps): Sql {
  const { db } = deps;
  const settling = new Set<Promise<unknown>>();

  // Writes waiting for this process's next statement (Sql.later), written just in front of it.
  let riding: Array<{ writes: ReadonlyArray<readonly [string, readonly SqlValue[]]>; landed?: LandedHook }> = [];
  const sendRiders = () => {
    const riders = riding;
    riding = [];
    for (const { writes, landed } of riders) {
      const sending = step(async (tx) => {
        const counts = writes.slice(0, -1).map(([text, params]) => tx.defer(text, params));
        const [text, params] = writes.at(-1)!;
        const last = await tx.last(text, params);
        return [...(await Promise.all(counts)), last.changes];
      }, true)
        .then((counts) => landed?.(counts))
        .catch(() => {});
      settling.add(sending);
      void sending.finally(() => settling.delete(sending));
    }
  };

  /** `work` as one transaction (none for a one-write step: its one write is atomic by itself). */
  async function step<R>(work: (tx: Sql) => Promise<R>, write: boolean, oneWrite = false): Promise<R> {
    if (riding.length > 0) sendRiders();
    await deps.ready();
    const answers: Answered[] = [];
    try {
      const run = (client?: Client, commit?: () => Promise<unknown>) => {
        const send = (text: string, params: readonly SqlValue[]) =>
          client
            ? client.query(text, params as SqlValue[])
            : isWrite(text)
              ? db.step([[text, params]]).then((r) => r[0]!)
              : db.query(text, params).then(asResult);
        const tx = stepSql(db.where, send, answers, [], { oneWrite, end: () => commit?.() });
        return work(tx).then(async (result) => {
          void commit?.();
          await tx.settled();
          return result;
        });
      };
      // A one-write step, or a single statement: no transaction block (READ COMMITTED: a read
      // takes its own snapshot in one or out of one). Otherwise alone on the connection.
      return await (oneWrite || !write ? run() : db.transaction(run));
    } catch (error) {
      if (!write || !hasSentUnrepeatable() || !isKeepable(error)) throw asFailure(error);
      // Run again without the database, answered as it was: the writes it makes are kept.
      const kept: SpooledStatement[] = [];
      let result: R;
      try {
        result = await work(stepSql(db.where, undefined, answers, kept, { oneWrite, end: () => undefined }));
      } catch {
        throw asFailure(error);
      }
      if (kept.length) {
        await deps.spool.keep(kept);
        deps.onKept(error, kept);
      }
      return result;
    }
  }

  const asFailure = (error: unknown): unknown =>
    error instanceof Error && 'exitCode' in error ? error : db.unavailable(error);
  const single = <R>(text: string, work: (tx: Sql) => Promise<R>) => step(work, isWrite(text), isWrite(text));

  return {
    where: db.where,
    all: <T>(text: string, params: readonly SqlValue[] = []) => single(text, (tx) => tx.all<T>(text, params)),
    get: <T>(text: string, params: readonly SqlValue[] = []) => single(text, (tx) => tx.get<T>(text, params)),
    run: (text: string, params: readonly SqlValue[] = []) => step((tx) => tx.run(text, params), true, true),
    defer: () => {
      throw new Error("Sql.defer is for a transaction's tx");
    },
    last: <T>(text: string, params: readonly SqlValue[] = []) => single(text, (tx) => tx.last<T>(text, params)),
    transaction: (work, o) => step(work, true, o?.oneWrite === true),
    // Written in front of this process's next statement (pipelined with it: no round trip of
    // their own); flush() sends what still waits, and waits for what was sent.
    later(writes, landed) {
      riding.push({ writes, landed });
    },
    async flush() {
      if (riding.length > 0) sendRiders();
      while (settling.size > 0) await Promise.all(settling);
    },
  };
}

/** The ledger on a connection whose transaction the caller holds (a migration moving documents in). */
export const onClient = (where: string, client: Client): Sql =>
  stepSql(where, (text, params) => client.query(text, params as SqlValue[]), [], [], {
    oneWrite: false,
    end: () => undefined,
  });

type LandedHook = (counts: number[]) => Promise<unknown> | void;

const asResult = (rows: unknown[]): QueryResult =>
  ({ rows, rowCount: rows.length, command: '', oid: 0, fields: [] }) as unknown as QueryResult;
