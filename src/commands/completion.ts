/**
 * `schedctl completion bash|zsh|fish`: prints a completion script generated from the live
 * command tree, plus the hidden `completion __complete profiles` the scripts call for
 * profile names (local config only: completing must never cost a request or show a key).
 */
import { Argument, Command } from 'commander';
import type { Context } from '../context.js';
import { action } from './action.js';

// Repeated from src/completion/index.ts: importing it here would load the generators for --help.
const SHELLS = ['bash', 'zsh', 'fish'];

const INSTALL_HELP = `
Install (then open a new shell):
  bash  schedctl completion bash > ~/.local/share/bash-completion/completions/schedctl
  zsh   schedctl completion zsh > ~/.zfunc/_schedctl   (~/.zfunc in $fpath before compinit)
  fish  schedctl completion fish > ~/.config/fish/completions/schedctl.fish
Profile names are completed by running the same binary (local config only, no network).`;

export function completionCommand(ctx: Context): Command {
  return new Command('completion')
    .description('print a shell completion script for bash, zsh or fish')
    .addArgument(new Argument('<shell>', 'the shell to complete in').choices(SHELLS))
    .usage('[options] <shell>') // the helper subcommand is hidden: keep "[command]" out of the usage line
    .addHelpText('after', INSTALL_HELP)
    .addCommand(completeHelperCommand(ctx), { hidden: true })
    .action(
      action(ctx, async ([shell], _opts, cmd) => {
        const { completionScript } = await import('../completion/index.js');
        const script = completionScript(shell as 'bash' | 'zsh' | 'fish', rootOf(cmd));
        if (ctx.globals.json) (await ctx.ui()).json({ shell, script });
        else ctx.io.stdout.write(script);
      }),
    );
}

/** The program itself, reached from the command (cli.ts imports this module: no import back). */
function rootOf(cmd: Command): Command {
  let root = cmd;
  while (root.parent) root = root.parent;
  return root;
}

function completeHelperCommand(ctx: Context): Command {
  return new Command('__complete')
    .description('values for the completion scripts, one per line')
    .addArgument(new Argument('<what>').choices(['profiles']))
    .action(
      action(ctx, async () => {
        for (const name of await profileNames(ctx)) ctx.io.stdout.write(`${name}\n`);
      }),
    );
}

/** Names of the saved profiles; none (and no error, no file created) when there is no usable config. */
export async function profileNames(ctx: Context): Promise<string[]> {
  const [{ existsSync }, { join }] = await Promise.all([import('node:fs'), import('node:path')]);
  if (!existsSync(join(ctx.configDir(), 'config.json'))) return [];
  try {
    return (await ctx.store()).names();
  } catch {
    return []; // an unreadable config is for `schedctl profile ls` to report, not for a Tab press
  }
}
