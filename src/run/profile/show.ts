import { showUrl } from '../../config/mask.js';
import { resolveProfileName } from '../../config/target.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { type WorkspaceView, workspaceLines, workspaceView } from '../workspace-view.js';
import { type ProfileView, profileView, unknownProfile } from './view.js';

interface ShowView extends ProfileView {
  configFile: string;
  /** The workspace's keys (fingerprints) and names, as the ledger records them. */
  workspaceKeys: WorkspaceView['keys'];
  workspaceNames: string[];
}

export async function run(ctx: Context, [name]: string[]): Promise<void> {
  const view = await showView(ctx, name);
  const ui = await ctx.ui();
  if (ctx.globals.json) return ui.json({ profile: view });
  ui.print(
    [
      `name:      ${view.name}${view.isDefault ? ' (default)' : ''}`,
      `base URL:  ${view.baseUrl}`,
      `key:       ${view.key}`,
      `workspace: ${view.workspace}${view.workspaceNames.length ? ` (names: ${view.workspaceNames.join(', ')})` : ''}`,
      ...workspaceLines(
        { id: view.workspace, recorded: view.workspaceKeys.length > 0, keys: view.workspaceKeys, names: [] },
        '           ',
      ),
      ...(view.state ? [`state:     ${view.state} (team state)`] : []),
      `stored in: ${view.configFile}`,
    ].join('\n'),
  );
}

async function showView(ctx: Context, name: string | undefined): Promise<ShowView> {
  const store = (await ctx.state()).profiles;
  const { defaultProfile, profiles } = await store.snapshot();
  const chosen =
    name ?? resolveProfileName({ flagProfile: ctx.globals.profile, env: ctx.env, defaultProfile, profiles });
  if (!chosen) throw new UsageError('no profile in use', { hint: 'add one with `schedctl profile add <name>`' });
  const profile = profiles[chosen];
  if (!profile) throw unknownProfile(chosen, Object.keys(profiles).sort());
  const ws = await workspaceView(await ctx.state(), profile);
  return {
    ...profileView(chosen, profile, defaultProfile === chosen),
    // Its id begins with the URL: shown as every URL is (config/mask.ts).
    workspace: showUrl(ws.id),
    configFile: store.path,
    workspaceKeys: ws.keys,
    workspaceNames: ws.names,
  };
}
