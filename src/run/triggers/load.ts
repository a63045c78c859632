import type { Trigger } from '../../api/schemas.js';
import type { Context } from '../../context.js';
import { resolveTrigger } from '../../domain/triggers.js';
import { UsageError } from '../../errors.js';

/** Lists the triggers once (one request) and resolves an id or name among them. */
export async function loadTrigger(ctx: Context, idOrName: string): Promise<Trigger> {
  // An empty name can match nothing: say so before spending a request on the list.
  if (!idOrName.trim()) {
    throw new UsageError('empty trigger: pass a trigger id or name', { hint: 'list them with `schedctl triggers ls`' });
  }
  const api = await ctx.api();
  const { triggers } = await api.listTriggers();
  return resolveTrigger(triggers, idOrName);
}
