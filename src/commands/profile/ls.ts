import { Command } from 'commander';
import type { Context } from '../../context.js';
import { action } from '../action.js';
import type { ProfileView } from './index.js';

export function profileLsCommand(ctx: Context): Command {
  return new Command('ls')
    .alias('list')
    .description('list profiles: name, base URL, masked key, and which is the default')
    .action(
      action(ctx, async () => {
        const profiles = await run(ctx);
        const ui = await ctx.ui();
        if (ctx.globals.json) return ui.json({ profiles });
        if (profiles.length === 0) return ui.info('no profiles yet; add one with `schedctl profile add <name>`');
        const { renderTable } = await import('../../ui/table.js');
        ui.print(
          renderTable(
            ['DEFAULT', 'NAME', 'BASE URL', 'KEY'],
            profiles.map((p) => [p.isDefault ? '*' : '', p.name, p.baseUrl, p.key]),
            { color: ui.out.level > 0 },
          ),
        );
      }),
    );
}

export async function run(ctx: Context): Promise<ProfileView[]> {
  const [store, { maskKey }] = await Promise.all([ctx.store(), import('../../config/mask.js')]);
  return store.list().map(({ name, profile, isDefault }) => ({ name, baseUrl: profile.baseUrl, key: maskKey(profile.apiKey), isDefault }));
}
