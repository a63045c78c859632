import type { EventDetail } from '../../api/schemas.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { Ui } from '../../ui/ui.js';
import { renderTable } from '../../ui/table.js';

export async function run(ctx: Context, [event = '']: string[]): Promise<void> {
  if (!event.trim()) throw new UsageError('missing <event>: pass an event id or slug (see `schedctl events ls`)');
  const api = await ctx.api();
  const detail = await api.getEvent(event);
  const ui = await ctx.ui();
  if (ctx.globals.json) return ui.json(detail);
  ui.print(detailLines(detail, ui).join('\n'));
  ui.info(`\nslots: schedctl slots ${event}`);
}

function detailLines(detail: EventDetail, ui: Ui): string[] {
  const color = { color: ui.out.level > 0 };
  const b = ui.out.bold;
  const questions = [...detail.questions].sort((x, y) => x.order - y.order);
  return [
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
          detail.hosts.map((h) => [h.name, [h.isPrimary ? 'primary' : '', h.isQueue ? 'queue' : ''].filter(Boolean).join(', ')]),
          color,
        )
      : '(none)',
    '',
    b('QUESTIONS'),
    questions.length
      ? renderTable(
          ['#', 'TITLE', 'TYPE', 'REQUIRED', 'NOTES'],
          questions.map((q) => [
            q.order,
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
