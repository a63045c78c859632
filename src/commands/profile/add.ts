import { Command, Option } from 'commander';
import type { Context } from '../../context.js';
import { runs } from '../action.js';

export function profileAddCommand(ctx: Context): Command {
  return new Command('add')
    .description('add or replace a profile; the key is read from a hidden prompt, or from stdin with --key-stdin')
    .addHelpText('after', "\nThe profile's base URL is the global --base-url (default: the local sandbox, http://127.0.0.1:4010).")
    .argument('<name>', 'profile name (letters, digits, _ . -)')
    .argument('[refused...]')
    .option('--default', 'make it the default profile')
    .option('--key-stdin', 'read the API key from stdin (e.g. `schedctl profile add prod --key-stdin < key.txt`)')
    .addOption(new Option('--key <key>').hideHelp())
    .addOption(new Option('--api-key <key>').hideHelp())
    .allowExcessArguments(true)
    .action(runs(ctx, 'profile/add'));
}
