import { Command } from 'commander';
import type { Trigger } from '../../api/schemas.js';
import type { Context } from '../../context.js';
import { action } from '../action.js';
import { loadTrigger } from './load.js';

export function triggersShowCommand(ctx: Context): Command {
  return new Command('show')
    .description("show a trigger's form fields: name, label, type, required, and the options of select fields")
    .argument('<trigger>', 'trigger id or name (a name is resolved by listing the triggers once)')
    .addHelpText('after', '\n--json prints the Trigger object.\nExample: schedctl triggers show "Inbound demo request"')
    .action(
      action(ctx, async ([idOrName]) => {
        const trigger = await run(idOrName ?? '', ctx);
        const ui = await ctx.ui();
        if (ctx.globals.json) return ui.json(trigger);
        const { renderTable } = await import('../../ui/table.js');
        const { isEmailField } = await import('../../domain/triggers.js');
        const lines = [
          `${ui.out.bold(trigger.name)}  ${trigger.id}`,
          ...(trigger.description ? [trigger.description] : []),
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
        ui.info(
          `\nfire it: schedctl trigger fire ${trigger.id} --email <lead> ${trigger.fields
            .filter((f) => f.required && !isEmailField(f))
            .map((f) => `--field ${f.name}=…`)
            .join(' ')}`.trimEnd(),
        );
      }),
    );
}

export async function run(idOrName: string, ctx: Context): Promise<Trigger> {
  return loadTrigger(ctx, idOrName);
}
