import type { Context } from '../../context.js';
import { tables } from '../../ui/table.js';

export async function run(ctx: Context): Promise<void> {
  const api = await ctx.api();
  const list = await api.listTriggers();
  const ui = await ctx.ui();
  if (ctx.globals.json) return ui.json(list);
  const renderTable = await tables();
  if (list.triggers.length === 0) return ui.info('this workspace has no API triggers');
  ui.print(
    renderTable(
      ['NAME', 'ID', 'FIELDS', 'DESCRIPTION'],
      list.triggers.map((t) => [t.name, t.id, t.fields.length, t.description]),
      { color: ui.out.level > 0 },
    ),
  );
}
