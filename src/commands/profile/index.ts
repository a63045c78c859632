import { Command } from 'commander';
import type { Context } from '../../context.js';
import { profileAddCommand } from './add.js';
import { profileLsCommand } from './ls.js';
import { profileRmCommand } from './rm.js';
import { profileShowCommand } from './show.js';
import { profileUseCommand } from './use.js';

export function profileCommand(ctx: Context): Command {
  return new Command('profile')
    .description('manage API keys and base URLs (profiles); keys are stored 0600 and shown masked')
    .addCommand(profileAddCommand(ctx))
    .addCommand(profileLsCommand(ctx))
    .addCommand(profileUseCommand(ctx))
    .addCommand(profileRmCommand(ctx))
    .addCommand(profileShowCommand(ctx));
}
