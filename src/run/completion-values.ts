import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Context } from '../context.js';

/** `completion __complete profiles`: the saved profile names, one per line. */
export async function run(ctx: Context): Promise<void> {
  for (const name of await profileNames(ctx)) ctx.io.stdout.write(`${name}\n`);
}

/** Names of the saved profiles; none (and no error, no file created) when there is no usable config. */
async function profileNames(ctx: Context): Promise<string[]> {
  if (!existsSync(join(ctx.configDir(), 'config.json'))) return [];
  try {
    return await (await ctx.state()).profiles.names();
  } catch {
    return []; // an unreadable config is for `schedctl profile ls` to report, not for a Tab press
  }
}
