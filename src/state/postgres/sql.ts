/**
 * The ledger's tables in the team database, as the stores see them (sql/types.ts): `?` becomes
 * `$n`, each step one transaction on the command's connection (connect.ts), its statements
 * written together (pg's pipeline mode): a step is one round trip whatever its length. No lock
 * shared by two leads: row writes only.
 *
 * When the database fails after this process sent a request that must not be repeated, the
 * step's outcome must not be lost: its write statements are kept on this machine
 * (ledger-spool.ts), to be applied to the database, in order, by the next run. A statement
 * carries its whole row (an upsert) or names what it removes. A step's statements are known
 * (they are its list); a transaction's are learnt by running its code again, each statement it
 * had been answered answered the same way (no copy of the database is kept: a transaction that
 * needs an answer it never got is not kept, and fails).
 */
import type { Client, QueryResult } from 'pg';
import { hasSentUnrepeatable } from '../../api/send-hook.js';
import { isWrite } from '../sql/last.js';
import type { Answer, Sql, SqlValue, Statement } from '../sql/types.js';
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

/** How a statement is sent: on a transaction's connection, or on its own. */
type Send = (text: string, params: readonly SqlValue[]) => Promise<QueryResult>;

/**
 * A transaction's `tx` (or a statement's own): each statement written at once, its answer noted
 * in `answers`, its write in `writes`. `step` ends a transaction: its statements and the COMMIT
 * (`commit`) written together. `send` undefined: the code run again without the database, for
 * the spool: statements answered before are answered the same, new writes count one row.
 */
function txSql(
  where: string,
  send: Send | undefined,
  answers: Answer[],
  writes: SpooledStatement[],
  commit: () => Promise<unknown> | undefined = () => undefined,
): Sql & { settled(): Promise<void> } {
  let n = 0;
  const sent: Array<Promise<unknown>> = [];
  const one = (text: string, params: readonly SqlValue[] = []): Promise<Answer> => {
    const write = isWrite(text);
    if (write) writes.push({ sql: text, params: [...params] });
    const at = n++;
    const known = answers[at];
    if (known) return Promise.resolve(known);
    // A replay past what was answered: a write counts as landed (it is kept), a read cannot be known.
    if (!send)
      return write
        ? Promise.resolve({ rows: [], changes: 1 })
        : Promise.reject(new Error('the step needs an answer the database never gave'));
    const answer = send(toPg(text), params).then(
      (r) => (answers[at] = { rows: r.rows, changes: write ? (r.rowCount ?? 0) : 0 }),
    );
    answer.catch(() => {});
    sent.push(answer);
    return answer;
  };
  const tx: Sql & { settled(): Promise<void> } = {
    where,
    all: async <T>(text: string, params?: readonly SqlValue[]) => (await one(text, params)).rows as T[],
    run: async (text, params) => (await one(text, params)).changes,
    async step(statements) {
      const answered = statements.map(([text, params]) => one(text, params));
      void commit();
      await tx.settled();
      return Promise.all(answered);
    },
    transaction: (work) => work(tx),
    /** Every statement answered: the first failure thrown. */
    async settled() {
      const failed = (await Promise.allSettled(sent)).find((a) => a.status === 'rejected');
      if (failed) throw (failed as PromiseRejectedResult).reason;
    },
  };
  return tx;
}

export function pgSql(deps: PgSqlDeps): Sql {
  const { db } = deps;

  /** `work` in one transaction (`alone`: none for one statement, which is atomic by itself). */
  async function run<R>(work: (tx: Sql) => Promise<R>, write: boolean, alone = false): Promise<R> {
    await deps.ready();
    const answers: Answer[] = [];
    try {
      if (alone) {
        const send: Send = (text, params) =>
          write ? db.step([[text, params]]).then((r) => r[0]!) : db.query(text, params).then(asResult);
        return await work(txSql(db.where, send, answers, []));
      }
      return await db.transaction(async (client, commit) => {
        const tx = txSql(db.where, (text, params) => client.query(text, params as SqlValue[]), answers, [], commit);
        const result = await work(tx);
        void commit();
        await tx.settled();
        return result;
      });
    } catch (error) {
      if (!write || !hasSentUnrepeatable() || !isKeepable(error)) throw asFailure(error);
      // Run again without the database, answered as it was: the writes it makes are kept.
      const kept: SpooledStatement[] = [];
      let result: R;
      try {
        result = await work(txSql(db.where, undefined, answers, kept));
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

  return {
    where: db.where,
    all: <T>(text: string, params: readonly SqlValue[] = []) =>
      run((tx) => tx.all<T>(text, params), isWrite(text), true),
    run: (text: string, params: readonly SqlValue[] = []) => run((tx) => tx.run(text, params), true, true),
    step: (statements: readonly Statement[]) =>
      run(
        (tx) => tx.step(statements),
        statements.some(([text]) => isWrite(text)),
      ),
    transaction: (work) => run(work, true),
  };
}

/** The ledger on a connection whose transaction the caller holds (a migration moving documents in). */
export const onClient = (where: string, client: Client): Sql =>
  txSql(where, (text, params) => client.query(text, params as SqlValue[]), [], []);

const asResult = (rows: unknown[]): QueryResult =>
  ({ rows, rowCount: rows.length, command: '', oid: 0, fields: [] }) as unknown as QueryResult;
