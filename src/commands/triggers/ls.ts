import { Command } from 'commander';
import type { TriggersList } from '../../api/schemas.js';
import type { Context } from '../../context.js';
import { action } from '../action.js';

export function triggersLsCommand(ctx: Context): Command {
  return new Command('ls')
    .alias('list')
    .description('list the API triggers: name, id, number of fields, description')
    .addHelpText('after', '\n--json prints {"triggers": [...]} as the API returns it.')
    .action(
      action(ctx, async () => {
        const list = await run(ctx);
        const ui = await ctx.ui();
        if (ctx.globals.json) return ui.json(list);
        if (list.triggers.length === 0) return ui.info('this workspace has no API triggers');
        const { renderTable } = await import('../../ui/table.js');
        ui.print(
          renderTable(
            ['NAME', 'ID', 'FIELDS', 'DESCRIPTION'],
            list.triggers.map((t) => [t.name, t.id, t.fields.length, t.description]),
            { color: ui.out.level > 0 },
          ),
        );
      }),
    );
}

export async function run(ctx: Context): Promise<TriggersList> {
  const api = await ctx.api();
  return api.listTriggers();
}
