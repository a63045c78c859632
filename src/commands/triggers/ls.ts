import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { command, runs } from '../action.js';

export function triggersLsCommand(ctx: Context): Command {
  return command('ls')
    .description('list the API triggers: name, id, number of fields, description')
    .addHelpText('after', '\n--json prints {"triggers": [...]} as the API returns it.')
    .action(runs(ctx, 'triggers/ls'));
}
