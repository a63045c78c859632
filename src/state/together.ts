/**
 * Writes of several stores sent as one step: one round trip on a team state (BEGIN, each write,
 * COMMIT, written together), one transaction on both engines (all of them land, or none). What
 * a confirmed booking writes (the meeting, its event's alias, the attempt settled, the workflow
 * run's outcome used up) is one such step, instead of one step per store.
 */
import type { SqlSource, Statement } from './sql/types.js';

/** One store's write in a shared step. */
export interface Write {
  statement: Statement;
  /** When it changed no row (a meeting already on record, an attempt moved to another workspace): the store's slower way, after the step. */
  otherwise?: (() => Promise<unknown>) | undefined;
}

export async function writeTogether(ledger: SqlSource, writes: ReadonlyArray<Write | undefined>): Promise<void> {
  const all = writes.filter((w): w is Write => w !== undefined);
  if (all.length === 0) return;
  const answers = await (await ledger()).step(all.map((w) => w.statement));
  await settleOtherwise(all, answers);
}

/** Each write that changed no row goes its store's slower way, in order. */
export async function settleOtherwise(
  writes: readonly Write[],
  answers: ReadonlyArray<{ changes: number }>,
): Promise<void> {
  for (const [i, w] of writes.entries()) if (answers[i]?.changes === 0) await w.otherwise?.();
}

/**
 * What a fire's answer leaves to write (the fire answered, its scheduler outcome remembered), to
 * go with the booking's first step (its attempt marked sent, Journal.begin): the fire's answer,
 * its outcome and the attempt then land in one step, one round trip on a team state. Lost only
 * with the process (killed before that step): the re-run then says the fire went unanswered.
 * `send` writes what is left when no booking follows (the route ends: state.flush()).
 * Held only where a step costs a round trip (`holds`: a team state); on this machine's ledger
 * they are written at once, which a killed process then keeps.
 */
export class FireAnswers {
  private writes: Write[] = [];
  holds = false;

  add(writes: readonly Write[]): void {
    this.writes.push(...writes);
  }

  /** The writes waiting, taken (the caller's step carries them). */
  take(): Write[] {
    return this.writes.splice(0);
  }

  async send(ledger: SqlSource): Promise<void> {
    await writeTogether(ledger, this.take());
  }
}
