import type { EventDetail } from '../../api/schemas.js';
import type { Context } from '../../context.js';
import type { Api } from '../../api/endpoints.js';
import { ApiError, UsageError } from '../../errors.js';
import { knownEventsHint } from '../../hints.js';
import { MAX_EVENTS_PAGE } from '../../limits.js';
import type { Ui } from '../../ui/ui.js';
import { sanitizeDeep, sanitizeMultiline, sanitizeText } from '../../ui/sanitize.js';
import { type RenderTable, tables } from '../../ui/table.js';

export async function run(ctx: Context, [event = '']: string[]): Promise<void> {
  if (!event.trim()) throw new UsageError('missing <event>: pass an event id or slug (see `schedctl events ls`)');
  const api = await ctx.api();
  let detail: EventDetail;
  try {
    detail = await api.getEvent(event);
  } catch (error) {
    if (error instanceof ApiError && error.code === 'NOT_FOUND') throw await withKnownEvents(api, event, error);
    throw error;
  }
  const ui = await ctx.ui();
  if (ctx.globals.json) return ui.json(detail);
  // The human view is built from a sanitized copy: server text is shown escaped, our bold stays.
  const view = sanitizeDeep(detail);
  // The description may have lines of its own: kept, but each under the value column.
  if (detail.schedulerDescription)
    view.schedulerDescription = sanitizeMultiline(detail.schedulerDescription, ' '.repeat('description   '.length));
  ui.print(detailLines(view, ui, linkAsked(event, detail), await tables()).join('\n'));
  ui.info(`\nslots: schedctl slots ${event}`);
}

/** NOT_FOUND: the known slugs (one more request, only on this failure), and the nearest one. */
async function withKnownEvents(api: Api, event: string, error: ApiError): Promise<ApiError> {
  let slugs: string[];
  try {
    slugs = (await api.listEvents({ limit: MAX_EVENTS_PAGE })).events.map((e) => e.slug);
  } catch {
    return error.withHint(knownEventsHint(event, undefined));
  }
  return error.withHint(knownEventsHint(event, slugs));
}

/**
 * The id or slug asked for, when it named a scheduling link. The API answers a link with its
 * event's fields (id, slug, name) and the link's hosts, so an answer whose id and slug both
 * differ from what was asked came from a link. (A link slug equal to its event's slug cannot be
 * told apart; the hosts shown are still the link's.)
 */
function linkAsked(asked: string, detail: EventDetail): string | undefined {
  return asked === detail.id || asked === detail.slug ? undefined : asked;
}

function detailLines(detail: EventDetail, ui: Ui, link: string | undefined, renderTable: RenderTable): string[] {
  const color = { color: ui.out.level > 0 };
  const b = ui.out.bold;
  // Numbered from 1 in the order the API gives (`order`), whatever numbers `order` uses.
  const questions = [...detail.questions].sort((x, y) => x.order - y.order);
  return [
    ...(link
      ? [
          `${b(`scheduling link ${sanitizeText(link)}`)} (resolves to event ${detail.name}, ${detail.slug}; the hosts are the link's)`,
        ]
      : []),
    `${b(detail.name)}  (${detail.slug})`,
    `id            ${detail.id}`,
    `title         ${detail.schedulerTitle}`,
    ...(detail.schedulerDescription ? [`description   ${detail.schedulerDescription}`] : []),
    `duration      ${detail.duration} min, a start every ${detail.timeslotIncrement} min`,
    `conferencing  ${detail.conferencingType}`,
    ...(detail.location ? [`location      ${detail.location}`] : []),
    '',
    b('HOSTS'),
    detail.hosts.length
      ? renderTable(
          ['NAME', 'ROLE'],
          detail.hosts.map((h) => [
            h.name,
            [h.isPrimary ? 'primary' : '', h.isQueue ? 'queue' : ''].filter(Boolean).join(', '),
          ]),
          color,
        )
      : '(none)',
    '',
    b('QUESTIONS'),
    questions.length
      ? renderTable(
          ['#', 'TITLE', 'TYPE', 'REQUIRED', 'NOTES'],
          questions.map((q, i) => [
            i + 1,
            q.title,
            q.type,
            q.isRequired ? 'yes' : 'no',
            [
              q.requireWorkEmail ? 'work email required' : '',
              q.options.length ? `options: ${q.options.map((o) => `${o.value} (${o.label})`).join(', ')}` : '',
            ]
              .filter(Boolean)
              .join('; '),
          ]),
          color,
        )
      : '(none)',
  ];
}
