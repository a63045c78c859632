import type { Command } from 'commander';
import { completionScript } from '../completion/index.js';
import type { Context } from '../context.js';

export async function run(ctx: Context, [shell]: string[], _opts: unknown, cmd: Command): Promise<void> {
  const script = completionScript(shell as 'bash' | 'zsh' | 'fish', rootOf(cmd));
  if (ctx.globals.json) (await ctx.ui()).json({ shell, script });
  else ctx.io.stdout.write(script);
}

/** The program itself, reached from the command. */
function rootOf(cmd: Command): Command {
  let root = cmd;
  while (root.parent) root = root.parent;
  return root;
}
