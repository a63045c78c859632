import type { Trigger } from '../../api/schemas.js';
import type { Context } from '../../context.js';

/** Lists the triggers once (one request) and resolves an id or name among them. */
export async function loadTrigger(ctx: Context, idOrName: string): Promise<Trigger> {
  const [api, { resolveTrigger }] = await Promise.all([ctx.api(), import('../../domain/triggers.js')]);
  const { triggers } = await api.listTriggers();
  return resolveTrigger(triggers, idOrName);
}
