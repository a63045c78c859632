import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { command, runs } from '../action.js';

export function profileLsCommand(ctx: Context): Command {
  return command('ls')
    .description('list profiles: name, base URL, masked key, and which is the default')
    .action(runs(ctx, 'profile/ls'));
}
