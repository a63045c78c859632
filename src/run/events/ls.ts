import type { EventSummary } from '../../api/schemas.js';
import type { Context } from '../../context.js';
import { BadResponseError, UsageError } from '../../errors.js';
import { MAX_EVENTS_PAGE } from '../../limits.js';
import { tables } from '../../ui/table.js';
import { sanitizeText } from '../../ui/sanitize.js';

interface LsOptions {
  limit?: string;
  all?: boolean;
  cursor?: string;
}

interface LsRequest {
  limit: number | undefined;
  all: boolean;
  cursor: string | undefined;
}

export interface EventsPage {
  events: EventSummary[];
  /** "" when there are no more pages (also with --all). */
  nextCursor: string;
}

/** A server that keeps answering cursors would otherwise page forever. */
const MAX_PAGES = 1000;

export async function run(ctx: Context, _args: string[], opts: LsOptions): Promise<void> {
  const request = parseOptions(opts);
  const page = await fetchEvents(ctx, request);
  const ui = await ctx.ui();
  if (ctx.globals.json) return ui.json(page);
  const renderTable = await tables();
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
    const limit = request.limit ? ` --limit ${request.limit}` : '';
    ui.info(
      `more events: schedctl events ls --all${limit}   (or the next page: schedctl events ls${limit} --cursor ${sanitizeText(page.nextCursor)})`,
    );
  }
}

function parseOptions(opts: LsOptions): LsRequest {
  let limit: number | undefined;
  if (opts.limit !== undefined) {
    limit = /^\d+$/.test(opts.limit.trim()) ? Number(opts.limit) : Number.NaN;
    if (!(limit >= 1 && limit <= MAX_EVENTS_PAGE)) {
      throw new UsageError(`invalid --limit "${opts.limit}": expected a whole number from 1 to ${MAX_EVENTS_PAGE}`);
    }
  }
  if (opts.all && opts.cursor !== undefined)
    throw new UsageError('--all and --cursor do not combine: --all starts at the first page');
  return { limit, all: Boolean(opts.all), cursor: opts.cursor || undefined };
}

async function fetchEvents(ctx: Context, request: LsRequest): Promise<EventsPage> {
  const api = await ctx.api();
  const ui = await ctx.ui();
  const events: EventSummary[] = [];
  const seen = new Set<string>();
  let cursor = request.cursor;
  const limit = request.limit;
  const spinner = request.all && !ctx.globals.json ? await ui.spinner('fetching events…') : undefined;
  try {
    for (let pages = 0; ; pages++) {
      const page = await api.listEvents({ ...(cursor ? { cursor } : {}), ...(limit ? { limit } : {}) });
      events.push(...page.events);
      const next = page.nextCursor ?? '';
      if (!request.all || !next) return { events, nextCursor: next };
      spinner?.update(`fetched ${events.length} events…`);
      if (seen.has(next) || pages >= MAX_PAGES) {
        throw new BadResponseError(
          `the events list kept answering a nextCursor after ${pages + 1} pages (a repeated cursor); stopped`,
        );
      }
      seen.add(next);
      cursor = next;
    }
  } finally {
    spinner?.stop();
  }
}
