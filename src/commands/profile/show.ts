import { Command } from 'commander';
import type { Context } from '../../context.js';
import { action } from '../action.js';
import type { ProfileView } from './index.js';

interface ShowView extends ProfileView {
  configFile: string;
}

export function profileShowCommand(ctx: Context): Command {
  return new Command('show')
    .description('show a profile (default: the one in use) with its key masked')
    .argument('[name]', 'profile name')
    .action(
      action(ctx, async ([name]) => {
        const view = await run(name, ctx);
        const ui = await ctx.ui();
        if (ctx.globals.json) return ui.json({ profile: view });
        ui.print(
          [
            `name:      ${view.name}${view.isDefault ? ' (default)' : ''}`,
            `base URL:  ${view.baseUrl}`,
            `key:       ${view.key}`,
            `stored in: ${view.configFile}`,
          ].join('\n'),
        );
      }),
    );
}

export async function run(name: string | undefined, ctx: Context): Promise<ShowView> {
  const [store, { maskKey }, { resolveProfileName }] = await Promise.all([
    ctx.store(),
    import('../../config/mask.js'),
    import('../../config/target.js'),
  ]);
  const profiles = Object.fromEntries(store.list().map(({ name: n, profile }) => [n, profile]));
  const chosen = name ?? resolveProfileName({ flagProfile: ctx.globals.profile, env: ctx.env, defaultProfile: store.defaultName(), profiles });
  const profile = chosen ? store.get(chosen) : undefined;
  if (!chosen || !profile) {
    const { unknownProfile } = await import('./unknown.js');
    if (!chosen) {
      const { UsageError } = await import('../../errors.js');
      throw new UsageError('no profile in use', { hint: 'add one with `schedctl profile add <name>`' });
    }
    throw unknownProfile(chosen, store.names());
  }
  return { name: chosen, baseUrl: profile.baseUrl, key: maskKey(profile.apiKey), isDefault: store.defaultName() === chosen, configFile: store.path };
}
