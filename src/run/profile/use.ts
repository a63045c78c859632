import type { Context } from '../../context.js';
import { unknownProfile } from './view.js';

export async function run(ctx: Context, [name = '']: string[]): Promise<void> {
  const { profiles } = await ctx.state();
  if (!(await profiles.setDefault(name))) throw unknownProfile(name, await profiles.names());
  const ui = await ctx.ui();
  if (ctx.globals.json) ui.json({ defaultProfile: name });
  else ui.info(`default profile is now "${name}"`);
}
