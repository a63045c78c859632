import type { Trigger } from '../../api/schemas.js';
import type { Context } from '../../context.js';

/** Lists the triggers once (one request) and resolves an id or name among them. */
export async function loadTrigger(ctx: Context, idOrName: string): Promise<Trigger> {
  // An empty name can match nothing: say so before spending a request on the list.
  if (!idOrName.trim()) {
    const { UsageError } = await import('../../errors.js');
    throw new UsageError('empty trigger: pass a trigger id or name', { hint: 'list them with `schedctl triggers ls`' });
  }
  const [api, { resolveTrigger }] = await Promise.all([ctx.api(), import('../../domain/triggers.js')]);
  const { triggers } = await api.listTriggers();
  return resolveTrigger(triggers, idOrName);
}
