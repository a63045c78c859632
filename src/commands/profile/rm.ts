import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { command, runs } from '../action.js';

export function profileRmCommand(ctx: Context): Command {
  return command('rm')
    .description('remove a profile and its key')
    .argument('<name>', 'profile name')
    .action(runs(ctx, 'profile/rm'));
}
