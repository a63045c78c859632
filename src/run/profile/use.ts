import type { Context } from '../../context.js';
import { unknownProfile } from './view.js';

export async function run(ctx: Context, [name = '']: string[]): Promise<void> {
  const store = await ctx.store();
  if (!store.get(name)) throw unknownProfile(name, store.names());
  store.setDefault(name);
  const ui = await ctx.ui();
  if (ctx.globals.json) ui.json({ defaultProfile: name });
  else ui.info(`default profile is now "${name}"`);
}
