import { Command } from 'commander';
import type { Context } from '../../context.js';
import { action } from '../action.js';

export function profileRmCommand(ctx: Context): Command {
  return new Command('rm')
    .alias('remove')
    .description('remove a profile and its key')
    .argument('<name>', 'profile name')
    .action(
      action(ctx, async ([name]) => {
        await run(name ?? '', ctx);
        const ui = await ctx.ui();
        if (ctx.globals.json) ui.json({ removed: name });
        else ui.info(`removed profile "${name}"`);
      }),
    );
}

export async function run(name: string, ctx: Context): Promise<void> {
  const store = await ctx.store();
  if (!store.remove(name)) {
    const { unknownProfile } = await import('./unknown.js');
    throw unknownProfile(name, store.names());
  }
}
