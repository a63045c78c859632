import { maskKeys } from '../../config/mask-list.js';
import type { Context } from '../../context.js';
import { tables } from '../../ui/table.js';
import { type ProfileView, profileView } from './view.js';

export async function run(ctx: Context): Promise<void> {
  const { profiles: store } = await ctx.state();
  const listed = await store.list();
  // Two different keys never mask the same in one listing.
  const keys = maskKeys(listed.map(({ profile }) => profile.apiKey));
  const profiles: ProfileView[] = listed.map(({ name, profile, isDefault }, i) => ({
    ...profileView(name, profile, isDefault),
    key: keys[i]!,
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
