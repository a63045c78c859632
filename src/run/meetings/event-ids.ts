/**
 * `meetings ls --event X`: X may be an event's or a scheduling link's id or slug, while the record
 * keeps what a meeting was booked with (a routed one: its link's id) and the meeting's eventId. So
 * X is matched as booked, and also by the eventId it stands for: from the ledger's aliases (what
 * slots results and bookings taught it), or, for a slug the ledger has not seen, from one
 * GET /v1/scheduling/events/X (learnt as an alias, so the next look-up costs nothing). A link's
 * slug resolves to the event the link books (the API gives no link id for it): its meetings on
 * other links of that event are found too.
 */
import type { Context } from '../../context.js';
import { CliError } from '../../errors.js';
import type { State } from '../../state/index.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function eventIdsOf(
  ctx: Context,
  state: Pick<State, 'events'>,
  scope: string,
  event: string,
): Promise<string[]> {
  const known = (await state.events.of(scope, [event]))[event];
  if (known) return [known];
  // An id is matched as it is (an event's id, or the link id a routed meeting was booked with).
  if (UUID.test(event)) return [];
  try {
    const detail = await (await ctx.api()).getEvent(event);
    await state.events.learn(scope, event, detail.id).catch(() => undefined);
    return [detail.id];
  } catch (error) {
    if (error instanceof CliError && error.code === 'NOT_FOUND') return [];
    if (!(error instanceof CliError)) throw error;
    (await ctx.ui()).warn(
      `could not look up "${event}" at the API (${error.message}): listing the meetings recorded under that name only`,
    );
    return [];
  }
}
