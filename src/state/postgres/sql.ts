/**
 * The ledger's tables in the team database as the stores see them (sql/types.ts): `?` as `$n`, a
 * step one transaction in one round trip (connect.ts). When the database fails after an
 * unrepeatable request was sent, a step of writes (each an upsert or a delete, a transaction's
 * closing step too) is kept on this machine (ledger-spool.ts) and counts as landed; a step with
 * reads, or a failure before the closing step, has nothing to keep: it fails.
 */
import type { Client, QueryResult } from 'pg';
import { hasSentUnrepeatable } from '../../api/send-hook.js';
import { isWrite } from '../sql/last.js';
import type { Answer, Sql, SqlValue, Statement } from '../sql/types.js';
import { isConnectionFailure, toPg, type Database } from './connect.js';
import type { LedgerSpool, SpooledStatement } from './ledger-spool.js';

export interface PgSqlDeps {
  db: Database;
  /** The schema current (or its check riding), what the spool kept applied. */
  ready: () => Promise<void>;
  spool: LedgerSpool;
  /** Told when a step is kept on this machine instead (what it kept). */
  onKept: (error: unknown, statements: SpooledStatement[]) => void;
}

const answerOf = (r: QueryResult, text: string): Answer =>
  isWrite(text) ? { rows: r.rows, changes: r.rowCount ?? 0 } : { rows: r.rows, changes: 0 };

/** A Sql on `client`'s transaction: a step writes its statements with the COMMIT (`commit`) and resolves with them. */
function clientSql(where: string, client: Client, commit = (): unknown => undefined): Sql {
  const send = (text: string, params: readonly SqlValue[] = []) => client.query(toPg(text), params as SqlValue[]);
  const tx: Sql = {
    where,
    all: async <T>(text: string, params?: readonly SqlValue[]) => (await send(text, params)).rows as T[],
    run: async (text, params) => (await send(text, params)).rowCount ?? 0,
    async step(statements) {
      const sent = statements.map(([text, params]) => send(text, params));
      void commit();
      const answers = await Promise.allSettled(sent);
      const failed = answers.find((a) => a.status === 'rejected');
      if (failed) throw failed.reason;
      return answers.map((a, i) => answerOf((a as PromiseFulfilledResult<QueryResult>).value, statements[i]![0]));
    },
    transaction: (work) => work(tx),
  };
  return tx;
}

export function pgSql(deps: PgSqlDeps): Sql {
  const { db } = deps;
  const asFailure = (error: unknown): unknown =>
    error instanceof Error && 'exitCode' in error ? error : db.unavailable(error);

  /** `send`'s answers; when the database failed after an unrepeatable request, its writes kept and answered as landed. */
  async function keeping(statements: readonly Statement[], send: () => Promise<Answer[]>, onKeep = () => {}) {
    try {
      return await send();
    } catch (error) {
      const keepable = isConnectionFailure(error) || (error as { code?: unknown }).code === 'STATE_UNAVAILABLE';
      if (!keepable || !hasSentUnrepeatable() || !statements.every(([text]) => isWrite(text))) throw asFailure(error);
      const kept = statements.map(([sql, params = []]) => ({ sql, params: [...params] }));
      await deps.spool.keep(kept);
      deps.onKept(error, kept);
      onKeep();
      return statements.map((): Answer => ({ rows: [], changes: 1 }));
    }
  }

  const step = (statements: readonly Statement[]) =>
    keeping(statements, async () => {
      await deps.ready();
      const results = await db.step(statements.map(([text, params]) => [toPg(text), params]));
      return results.map((r, i) => answerOf(r, statements[i]![0]));
    });

  return {
    where: db.where,
    async all<T>(text: string, params: readonly SqlValue[] = []) {
      if (isWrite(text)) return (await step([[text, params]]))[0]!.rows as T[];
      try {
        await deps.ready();
        return await db.query<T & object>(toPg(text), params);
      } catch (error) {
        throw asFailure(error);
      }
    },
    run: async (text, params = []) => (await step([[text, params]]))[0]!.changes,
    step,
    async transaction(work) {
      // Its closing step kept, the COMMIT's failure is that step's: the work's result stands.
      let kept = false;
      let done: { result: Awaited<ReturnType<typeof work>> } | undefined;
      try {
        await deps.ready();
        return await db.transaction(async (client, commit) => {
          const tx = clientSql(db.where, client, commit);
          const step = (statements: readonly Statement[]) =>
            keeping(
              statements,
              () => tx.step(statements),
              () => (kept = true),
            );
          done = { result: await work({ ...tx, step, transaction: (w) => w({ ...tx, step }) }) };
          return done.result;
        });
      } catch (error) {
        if (kept && done) return done.result;
        throw asFailure(error);
      }
    },
  };
}

/** The ledger on a connection whose transaction the caller holds (a migration moving documents in). */
export const onClient = (where: string, client: Client): Sql => clientSql(where, client);
