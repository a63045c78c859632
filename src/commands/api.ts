import { Command } from 'commander';
import type { Context } from '../context.js';
import { runs } from './action.js';

export function apiCommand(ctx: Context): Command {
  return new Command('api')
    .description('make an authenticated raw request through the same HTTP layer and print the response body')
    .argument('<method>', 'HTTP method (GET, POST, PATCH, PUT, DELETE)')
    .argument('<path>', 'path under the base URL, e.g. /v1/triggers')
    .option('-d, --data <json>', 'request body: inline JSON, @FILE, or - for stdin')
    .addHelpText(
      'after',
      '\nOnly GET is retried; any other method is sent once (a lost response gives exit 7, never a repeat).\nExample: schedctl api GET /v1/scheduling/events',
    )
    .action(runs(ctx, 'api'));
}
