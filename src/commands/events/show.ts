import { Command } from 'commander';
import type { EventDetail } from '../../api/schemas.js';
import type { Context } from '../../context.js';
import { action } from '../action.js';

export function eventsShowCommand(ctx: Context): Command {
  return new Command('show')
    .description('show an event (or scheduling link): settings, hosts, and questions with required and work-email markers')
    .argument('<event>', 'event id or slug, or a scheduling link id or slug (a link slug wins over an event slug)')
    .addHelpText('after', '\n--json prints the EventDetail.\nExample: schedctl events show product-demo')
    .action(
      action(ctx, async ([event]) => {
        const detail = await run(event ?? '', ctx);
        const ui = await ctx.ui();
        if (ctx.globals.json) return ui.json(detail);
        const { renderTable } = await import('../../ui/table.js');
        const color = { color: ui.out.level > 0 };
        const b = ui.out.bold;
        const lines = [
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
            ? renderTable(['NAME', 'ROLE'], detail.hosts.map((h) => [h.name, [h.isPrimary ? 'primary' : '', h.isQueue ? 'queue' : ''].filter(Boolean).join(', ')]), color)
            : '(none)',
          '',
          b('QUESTIONS'),
          detail.questions.length
            ? renderTable(
                ['#', 'TITLE', 'TYPE', 'REQUIRED', 'NOTES'],
                [...detail.questions]
                  .sort((x, y) => x.order - y.order)
                  .map((q) => [
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
        ui.print(lines.join('\n'));
        ui.info(`\nslots: schedctl slots ${event}`);
      }),
    );
}

export async function run(event: string, ctx: Context): Promise<EventDetail> {
  const { UsageError } = await import('../../errors.js');
  if (!event.trim()) throw new UsageError('missing <event>: pass an event id or slug (see `schedctl events ls`)');
  const api = await ctx.api();
  return api.getEvent(event);
}
