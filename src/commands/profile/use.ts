import { Command } from 'commander';
import type { Context } from '../../context.js';
import { action } from '../action.js';

export function profileUseCommand(ctx: Context): Command {
  return new Command('use')
    .description('make a profile the default')
    .argument('<name>', 'profile name')
    .action(
      action(ctx, async ([name]) => {
        await run(name ?? '', ctx);
        const ui = await ctx.ui();
        if (ctx.globals.json) ui.json({ defaultProfile: name });
        else ui.info(`default profile is now "${name}"`);
      }),
    );
}

export async function run(name: string, ctx: Context): Promise<void> {
  const store = await ctx.store();
  if (!store.get(name)) {
    const { unknownProfile } = await import('./unknown.js');
    throw unknownProfile(name, store.names());
  }
  store.setDefault(name);
}
