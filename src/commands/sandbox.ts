import { Command } from 'commander';
import type { Context } from '../context.js';
import { runs } from './action.js';

export function sandboxCommand(ctx: Context): Command {
  return new Command('sandbox')
    .description('run a local, stateful emulator of the whole API: try schedctl without an account')
    .option('--host <host>', 'address to bind (loopback unless you mean it)', '127.0.0.1')
    .option('--port <port>', 'port to listen on (0 picks a free one)', '4010')
    .option(
      '--seed <n>',
      "seed of the generated workspace (default 1); given, the ids handed out repeat start after start (without it, each start's ids are new)",
    )
    .option('--hold-seconds <n>', 'how long a reservation holds', '600')
    .option('--rate-limit <n>', 'requests per minute per key (0 turns the limit off)', '30')
    .option('--state <file>', 'keep the workspace in this file across restarts')
    .addHelpText(
      'after',
      '\nWith --profile NAME it also saves a profile NAME pointing at the sandbox with its full-access key, and says\n' +
        'whether it is the default profile (your first profile is); to make it the default later: schedctl profile use NAME.',
    )
    .action(runs(ctx, 'sandbox'));
}
