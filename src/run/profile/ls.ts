import { maskKey } from '../../config/mask.js';
import { withoutUserinfo } from '../../config/target.js';
import type { Context } from '../../context.js';
import { tables } from '../../ui/table.js';
import type { ProfileView } from './view.js';

export async function run(ctx: Context): Promise<void> {
  const { profiles: store } = await ctx.state();
  const profiles: ProfileView[] = (await store.list()).map(({ name, profile, isDefault }) => ({
    name,
    baseUrl: withoutUserinfo(profile.baseUrl),
    key: maskKey(profile.apiKey),
    isDefault,
  }));
  const ui = await ctx.ui();
  if (ctx.globals.json) return ui.json({ profiles });
  const renderTable = await tables();
  if (profiles.length === 0) return ui.info('no profiles yet; add one with `schedctl profile add <name>`');
  ui.print(
    renderTable(
      ['DEFAULT', 'NAME', 'BASE URL', 'KEY'],
      profiles.map((p) => [p.isDefault ? '*' : '', p.name, p.baseUrl, p.key]),
      { color: ui.out.level > 0 },
    ),
  );
}
