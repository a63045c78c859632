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
  return {
    prepare: () => {
      known = state.fires.newEntry({
        scope: fire.scope,
        triggerId: fire.triggerId,
        personEmail: fire.email,
        answersKey: fire.answersKey,
      });
      return Promise.resolve(known.id);
    },
    markSent: async (id) => {
      if (known?.id !== id) throw new Error(`fire ${id} was not prepared by this journal`);
      written = true;
      known = await state.fires.recordSent(known);
    },
    answered: (id, result) => state.fires.answered(id, result.executionId, result.outcome.type, known),
    // In the step that remembers the outcome (Outcomes.remember's `along`): a fire written, as this journal knows it.
    answeredWrites: (result) =>
      written && known ? state.fires.answeredWrites(known, result.executionId, result.outcome.type) : [],
    // A fire never marked sent was never written: nothing to forget.
    forget: (id) => (written ? state.fires.forget(id) : Promise.resolve()),
  };
}
