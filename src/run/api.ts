import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { readJsonInput } from '../ui/json-input.js';

interface ApiOptions {
  data?: string;
}

const METHODS = ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'] as const;
type Method = (typeof METHODS)[number];

export async function run(ctx: Context, [rawMethod = '', path = '']: string[], opts: ApiOptions): Promise<void> {
  const method = rawMethod.toUpperCase() as Method;
  if (!METHODS.includes(method))
    throw new UsageError(`invalid method "${rawMethod}": expected one of ${METHODS.join(', ')}`);
  if (!path.startsWith('/')) throw new UsageError(`invalid path "${path}": it must start with /, e.g. /v1/triggers`);
  const body = opts.data === undefined ? undefined : await readJsonInput(opts.data, '--data', ctx.io.stdin);
  const [pathname = '', search = ''] = path.split('?', 2);
  const query = Object.fromEntries(new URLSearchParams(search));
  // The raw escape hatch (like `gh api`): what it sends, the lead ledger does not see. Said, since
  // a booking or a move sent this way is outside "one lead, one meeting" (docs/ledger.md).
  if ((method === 'POST' || method === 'PATCH') && /^\/v1\/scheduling\/meetings(\/|$)/.test(pathname))
    (await ctx.ui()).warn(
      'schedctl api sends this request as written: the lead ledger does not see it (schedctl book, route and reschedule keep one lead, one meeting)',
    );
  const http = await ctx.http();
  const answer = await http.request({
    method,
    path: pathname,
    query,
    body,
    safety: method === 'GET' ? 'retry' : 'once',
  });
  const ui = await ctx.ui();
  if (answer !== undefined) ui.json(answer);
  else if (ctx.globals.json) ui.json({});
}
