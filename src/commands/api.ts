import { Command } from 'commander';
import type { Context } from '../context.js';
import { action } from './action.js';

interface ApiOptions {
  data?: string;
}

const METHODS = ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'] as const;
type Method = (typeof METHODS)[number];

export function apiCommand(ctx: Context): Command {
  return new Command('api')
    .description('make an authenticated raw request through the same HTTP layer and print the response body')
    .argument('<method>', `HTTP method (${METHODS.join(', ')})`)
    .argument('<path>', 'path under the base URL, e.g. /v1/triggers')
    .option('-d, --data <json>', 'request body: inline JSON, @FILE, or - for stdin')
    .addHelpText(
      'after',
      '\nOnly GET is retried; any other method is sent once (a lost response gives exit 7, never a repeat).\nExample: schedctl api GET /v1/scheduling/events',
    )
    .action(
      action<ApiOptions>(ctx, async ([method, path], opts) => {
        const body = await run({ method: method ?? '', path: path ?? '', ...opts }, ctx);
        const ui = await ctx.ui();
        if (body === undefined) {
          if (ctx.globals.json) ui.json({});
          return;
        }
        ui.json(body);
      }),
    );
}

export async function run(opts: { method: string; path: string; data?: string }, ctx: Context): Promise<unknown> {
  const { UsageError } = await import('../errors.js');
  const method = opts.method.toUpperCase() as Method;
  if (!METHODS.includes(method)) throw new UsageError(`invalid method "${opts.method}": expected one of ${METHODS.join(', ')}`);
  if (!opts.path.startsWith('/')) throw new UsageError(`invalid path "${opts.path}": it must start with /, e.g. /v1/triggers`);
  let body: unknown;
  if (opts.data !== undefined) {
    const { readJsonInput } = await import('../ui/json-input.js');
    body = await readJsonInput(opts.data, '--data', ctx.io.stdin);
  }
  const [pathname = '', search = ''] = opts.path.split('?', 2);
  const query = Object.fromEntries(new URLSearchParams(search));
  const http = await ctx.http();
  return http.request({ method, path: pathname, query, body, safety: method === 'GET' ? 'retry' : 'once' });
}
