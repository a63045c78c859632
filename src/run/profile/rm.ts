import type { Context } from '../../context.js';
import { unknownProfile } from './view.js';

export async function run(ctx: Context, [name = '']: string[]): Promise<void> {
  const store = await ctx.store();
  if (!store.remove(name)) throw unknownProfile(name, store.names());
  const ui = await ctx.ui();
  if (ctx.globals.json) ui.json({ removed: name });
  else ui.info(`removed profile "${name}"`);
}
