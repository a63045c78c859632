import { Command } from 'commander';
import type { Context } from '../../context.js';
import { runs } from '../action.js';

export function triggersShowCommand(ctx: Context): Command {
  return new Command('show')
    .description("show a trigger's form fields: name, label, type, required, and the options of select fields")
    .argument('<trigger>', 'trigger id or name (a name is resolved by listing the triggers once)')
    .addHelpText('after', '\n--json prints the Trigger object.\nExample: schedctl triggers show "Inbound demo request"')
    .action(runs(ctx, 'triggers/show'));
}
