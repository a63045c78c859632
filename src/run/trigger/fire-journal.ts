/** The fires journal (state/fires.ts) as the domain's fire sees it (domain/fire.ts FireJournal). */
import type { FireJournal } from '../../domain/fire.js';
import type { FireEntry, State } from '../../state/index.js';

export function fireJournalOf(
  state: Pick<State, 'fires'>,
  fire: { scope: string; triggerId: string; email: string; answersKey: string },
): FireJournal {
  // The fire as this fire's steps last wrote it: each next step writes over it without a read.
  let known: FireEntry | undefined;
  return {
    prepare: async () => {
      known = await state.fires.prepare({
        scope: fire.scope,
        triggerId: fire.triggerId,
        personEmail: fire.email,
        answersKey: fire.answersKey,
      });
      return known.id;
    },
    markSent: async (id) => {
      known = await state.fires.markSent(id, known);
    },
    answered: (id, result) => state.fires.answered(id, result.executionId, result.outcome.type, known),
    forget: (id) => state.fires.forget(id),
  };
}
