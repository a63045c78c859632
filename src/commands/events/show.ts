import { Command } from 'commander';
import type { Context } from '../../context.js';
import { runs } from '../action.js';

export function eventsShowCommand(ctx: Context): Command {
  return new Command('show')
    .description(
      'show an event (or scheduling link): settings, hosts, and questions with required and work-email markers',
    )
    .argument('<event>', 'event id or slug, or a scheduling link id or slug (a link slug wins over an event slug)')
    .addHelpText('after', '\n--json prints the EventDetail.\nExample: schedctl events show product-demo')
    .action(runs(ctx, 'events/show'));
}
