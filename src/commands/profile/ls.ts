import { Command } from 'commander';
import type { Context } from '../../context.js';
import { runs } from '../action.js';

export function profileLsCommand(ctx: Context): Command {
  return new Command('ls')
    .alias('list')
    .description('list profiles: name, base URL, masked key, and which is the default')
    .action(runs(ctx, 'profile/ls'));
}
