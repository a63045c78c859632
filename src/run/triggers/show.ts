import type { Context } from '../../context.js';
import { isEmailField } from '../../domain/triggers.js';
import { sanitizeDeep, sanitizeMultiline } from '../../ui/sanitize.js';
import { tables } from '../../ui/table.js';
import { loadTrigger } from './load.js';

export async function run(ctx: Context, [idOrName = '']: string[]): Promise<void> {
  const found = await loadTrigger(ctx, idOrName);
  const ui = await ctx.ui();
  if (ctx.globals.json) return ui.json(found);
  const renderTable = await tables();
  // The human view is built from a sanitized copy: server text is shown escaped, our bold stays.
  const trigger = sanitizeDeep(found);
  const lines = [
    `${ui.out.bold(trigger.name)}  ${trigger.id}`,
    // Its own lines kept, all indented: none of the server's can start a line of output.
    ...(found.description ? [`  ${sanitizeMultiline(found.description, '  ')}`] : []),
    '',
    renderTable(
      ['NAME', 'LABEL', 'TYPE', 'REQUIRED', 'OPTIONS'],
      trigger.fields.map((f) => [
        f.name,
        f.label,
        f.type,
        isEmailField(f) ? 'from --email' : f.required ? 'yes' : 'no',
        f.options ? f.options.map((o) => `${o.value} (${o.label})`).join(', ') : '',
      ]),
      { color: ui.out.level > 0 },
    ),
  ];
  ui.print(lines.join('\n'));
  const required = trigger.fields.filter((f) => f.required && !isEmailField(f)).map((f) => `--field ${f.name}=…`);
  ui.info(`\nfire it: schedctl trigger fire ${trigger.id} --email <lead> ${required.join(' ')}`.trimEnd());
}
