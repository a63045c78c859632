/** The fires journal (state/fires.ts) as the domain's fire sees it (domain/fire.ts FireJournal). */
import type { FireJournal } from '../../domain/fire.js';
import type { FireEntry, State } from '../../state/index.js';

export function fireJournalOf(
  state: Pick<State, 'fires'>,
  fire: { scope: string; triggerId: string; email: string; answersKey: string },
): FireJournal {
  // The fire as this fire's steps last wrote it: each next step writes over it without a read.
  // Written first when marked sent (recordSent): a fire that never leaves leaves no record.
  let known: FireEntry | undefined;
  let written = false;
  /** The fire marked sent ahead (markAhead): its entry once landed, undefined when it was not marked. */
  let ahead: Promise<FireEntry | undefined> | undefined;
  const entry = () =>
    (known ??= state.fires.newEntry({
      scope: fire.scope,
      triggerId: fire.triggerId,
      personEmail: fire.email,
      answersKey: fire.answersKey,
    }));
  return {
    prepare: () => Promise.resolve(entry().id),
    markAhead: () => {
      ahead = state.fires.recordSentIfNewLead(entry());
      ahead.catch(() => {});
      return entry().id;
    },
    markSent: async (id) => {
      if (known?.id !== id) throw new Error(`fire ${id} was not prepared by this journal`);
      if (ahead) {
        const marked = await ahead.catch(async (error: unknown) => {
          // Not known to be marked: never sent, and a mark that landed is taken back.
          ahead = undefined;
          await state.fires.forget(id).catch(() => {});
          throw error;
        });
        ahead = undefined;
        if (marked) {
          written = true;
          known = marked;
          return;
        }
      }
      written = true;
      known = await state.fires.recordSent(known);
    },
    // The mark is taken back once it has landed (a row that was never written: nothing removed).
    abandonAhead: async () => {
      if (!ahead || !known) return;
      const marking = ahead;
      ahead = undefined;
      await marking.catch(() => undefined);
      await state.fires.forget(known.id);
    },
    answered: (id, result) => state.fires.answered(id, result.executionId, result.outcome.type, known),
    // In the step that remembers the outcome (Outcomes.remember's `along`): a fire written, as this journal knows it.
    answeredWrites: (result) =>
      written && known ? state.fires.answeredWrites(known, result.executionId, result.outcome.type) : [],
    // A fire never marked sent was never written: nothing to forget, but a mark sent ahead.
    forget: async (id) => {
      if (written) return state.fires.forget(id);
      if (ahead) {
        const marking = ahead;
        ahead = undefined;
        await marking.catch(() => undefined);
        await state.fires.forget(id);
      }
    },
  };
}
