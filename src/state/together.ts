/**
 * Writes of several stores sent as one step: one round trip on a team state (each write with
 * the COMMIT), one transaction on both engines (all of them land, or none). What a confirmed
 * booking writes (the meeting, its event's alias, the attempt settled, the workflow run's
 * outcome used up) is one such step, instead of one step per store.
 */
import type { SqlSource, SqlValue, StepOptions } from './sql/types.js';

/** One store's write in a shared step. */
export interface Write {
  statement: [string, SqlValue[]];
  /** When it changed no row (a meeting already on record, an attempt moved to another workspace): the store's slower way, after the step. */
  otherwise?: (() => Promise<unknown>) | undefined;
}

export async function writeTogether(
  ledger: SqlSource,
  writes: ReadonlyArray<Write | undefined>,
  o: StepOptions & {
    /**
     * Writes whose loss the ledger's rules survive (asyncCommit's kind): sent with the next step
     * where that saves a round trip (Sql.later), resolving at once.
     */
    later?: boolean;
  } = {},
): Promise<void> {
  const all = writes.filter((w): w is Write => w !== undefined);
  if (all.length === 0) return;
  const { later, ...step } = o;
  const db = await ledger();
  if (later && db.later) {
    db.later(
      all.map((w) => w.statement),
      async (counts) => {
        for (const [i, w] of all.entries()) if (counts[i] === 0) await w.otherwise?.();
      },
    );
    return;
  }
  const counts = await db.transaction(async (tx) => {
    const deferred = all.slice(0, -1).map((w) => tx.defer(...w.statement));
    const last = await tx.last(...all.at(-1)!.statement);
    return [...(await Promise.all(deferred)), last.changes];
  }, step);
  for (const [i, w] of all.entries()) if (counts[i] === 0) await w.otherwise?.();
}
