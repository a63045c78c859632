import { Command } from 'commander';
import type { Context } from '../../context.js';
import { runs } from '../action.js';

export function profileShowCommand(ctx: Context): Command {
  return new Command('show')
    .description('show a profile (default: the one in use) with its key masked')
    .argument('[name]', 'profile name')
    .action(runs(ctx, 'profile/show'));
}
