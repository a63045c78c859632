import { Command } from 'commander';
import type { EventSummary } from '../../api/schemas.js';
import type { Context } from '../../context.js';
import { action } from '../action.js';

interface LsOptions {
  limit?: string;
  all?: boolean;
  cursor?: string;
}

export interface EventsPage {
  events: EventSummary[];
  /** "" when there are no more pages (also with --all). */
  nextCursor: string;
}

const MAX_LIMIT = 50;
/** A server that keeps answering cursors would otherwise page forever. */
const MAX_PAGES = 1000;

export function eventsLsCommand(ctx: Context): Command {
  return new Command('ls')
    .alias('list')
    .description('list active events, newest first (one page unless --all)')
    .option('-n, --limit <n>', `page size, 1 to ${MAX_LIMIT} (default: the server's)`)
    .option('--all', 'follow nextCursor and list every page')
    .option('--cursor <cursor>', 'start at this nextCursor of an earlier page')
    .addHelpText('after', '\n--json prints {"events": [...], "nextCursor": "..."} ("" when there are no more pages).')
    .action(
      action<LsOptions>(ctx, async (_args, opts) => {
        const page = await run(opts, ctx);
        const ui = await ctx.ui();
        if (ctx.globals.json) return ui.json(page);
        const { renderTable } = await import('../../ui/table.js');
        if (page.events.length === 0) ui.info('no events');
        else
          ui.print(
            renderTable(
              ['NAME', 'SLUG', 'DURATION (min)', 'INCREMENT', 'CONFERENCING', 'ID'],
              page.events.map((e) => [e.name, e.slug, e.duration, e.timeslotIncrement, e.conferencingType, e.id]),
              { color: ui.out.level > 0 },
            ),
          );
        if (page.nextCursor) {
          const limit = opts.limit ? ` --limit ${opts.limit}` : '';
          ui.info(`more events: schedctl events ls --all${limit}   (or the next page: schedctl events ls${limit} --cursor ${page.nextCursor})`);
        }
      }),
    );
}

export async function run(opts: LsOptions, ctx: Context): Promise<EventsPage> {
  const { UsageError, BadResponseError } = await import('../../errors.js');
  let limit: number | undefined;
  if (opts.limit !== undefined) {
    limit = /^\d+$/.test(opts.limit.trim()) ? Number(opts.limit) : NaN;
    if (!(limit >= 1 && limit <= MAX_LIMIT)) throw new UsageError(`invalid --limit "${opts.limit}": expected a whole number from 1 to ${MAX_LIMIT}`);
  }
  if (opts.all && opts.cursor !== undefined) throw new UsageError('--all and --cursor do not combine: --all starts at the first page');
  const api = await ctx.api();
  const ui = await ctx.ui();
  const events: EventSummary[] = [];
  const seen = new Set<string>();
  let cursor = opts.cursor || undefined;
  const spinner = opts.all && !ctx.globals.json ? await ui.spinner('fetching events…') : undefined;
  try {
    for (let pages = 0; ; pages++) {
      const page = await api.listEvents({ ...(cursor ? { cursor } : {}), ...(limit ? { limit } : {}) });
      events.push(...page.events);
      const next = page.nextCursor ?? '';
      if (!opts.all || !next) return { events, nextCursor: next };
      spinner?.update(`fetched ${events.length} events…`);
      if (seen.has(next) || pages >= MAX_PAGES) {
        throw new BadResponseError(`the events list kept answering a nextCursor after ${pages + 1} pages (a repeated cursor); stopped`);
      }
      seen.add(next);
      cursor = next;
    }
  } finally {
    spinner?.stop();
  }
}
