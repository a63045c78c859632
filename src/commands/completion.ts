/**
 * `schedctl completion bash|zsh|fish`: prints a completion script generated from the live
 * command tree, plus the hidden `completion __complete profiles` the scripts call for
 * profile names (local config only: completing must never cost a request or show a key).
 */
import { Argument, Command } from 'commander';
import type { Context } from '../context.js';
import { runs } from './action.js';

// Repeated from src/completion/index.ts: importing it here would load the generators for --help.
const SHELLS = ['bash', 'zsh', 'fish'];

const INSTALL_HELP = `
Install (then open a new shell):
  bash  mkdir -p ~/.local/share/bash-completion/completions
        schedctl completion bash > ~/.local/share/bash-completion/completions/schedctl
  zsh   mkdir -p ~/.zfunc
        schedctl completion zsh > ~/.zfunc/_schedctl   (~/.zfunc in $fpath before compinit)
  fish  mkdir -p ~/.config/fish/completions
        schedctl completion fish > ~/.config/fish/completions/schedctl.fish
Profile names are completed by running the same binary (local config only, no network).`;

export function completionCommand(ctx: Context): Command {
  return new Command('completion')
    .description('print a shell completion script for bash, zsh or fish')
    .addArgument(new Argument('<shell>', 'the shell to complete in').choices(SHELLS))
    .usage('[options] <shell>') // the helper subcommand is hidden: keep "[command]" out of the usage line
    .addHelpText('after', INSTALL_HELP)
    .addCommand(
      new Command('__complete')
        .description('values for the completion scripts, one per line')
        .addArgument(new Argument('<what>').choices(['profiles']))
        .action(runs(ctx, 'completion-values')),
      { hidden: true },
    )
    .action(runs(ctx, 'completion'));
}
