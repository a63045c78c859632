/** The fires journal (state/fires.ts) as the domain's fire sees it (domain/fire.ts FireJournal). */
import type { FireJournal } from '../../domain/fire.js';
import type { State } from '../../state/index.js';

export function fireJournalOf(
  state: Pick<State, 'fires'>,
  fire: { scope: string; triggerId: string; email: string; answersKey: string },
): FireJournal {
  return {
    prepare: async () =>
      (
        await state.fires.prepare({
          scope: fire.scope,
          triggerId: fire.triggerId,
          personEmail: fire.email,
          answersKey: fire.answersKey,
        })
      ).id,
    markSent: (id) => state.fires.markSent(id),
    answered: (id, result) => state.fires.answered(id, result.executionId, result.outcome.type),
    forget: (id) => state.fires.forget(id),
  };
}
