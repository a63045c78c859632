import type { Context } from '../../context.js';
import { unknownProfile } from './view.js';

export async function run(ctx: Context, [name = '']: string[]): Promise<void> {
  const { profiles } = await ctx.state();
  const wasDefault = (await profiles.snapshot()).defaultProfile === name;
  if (!(await profiles.remove(name))) throw unknownProfile(name, await profiles.names());
  const ui = await ctx.ui();
  if (ctx.globals.json) ui.json({ removed: name });
  else ui.info(`removed profile "${name}"`);
  // Commands would now fail NO_API_KEY though other profiles are there: say which to make the default.
  const left = await profiles.names();
  if (wasDefault && left.length)
    ui.info(
      `note: "${name}" was the default profile; none is now: schedctl profile use ${left[0]} (profiles: ${left.join(', ')})`,
    );
}
