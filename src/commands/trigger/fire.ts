import { Command } from 'commander';
import type { Trigger, TriggerFireResult } from '../../api/schemas.js';
import type { Context } from '../../context.js';
import type { RememberedOutcome } from '../../domain/outcomes.js';
import { action, collect } from '../action.js';
import { loadTrigger } from '../triggers/load.js';
import { outcomeLines, reuseWarning } from './print.js';

export interface FireOptions {
  email?: string;
  field?: string[];
  responses?: string;
  context?: string[];
  force?: boolean;
}

export type FireRun =
  | { status: 'fired'; trigger: Trigger; email: string; result: TriggerFireResult }
  | { status: 'reused'; trigger: Trigger; email: string; remembered: RememberedOutcome };

export function triggerFireCommand(ctx: Context): Command {
  return new Command('fire')
    .description('fire a trigger for a lead: validates the fields locally first, then starts one workflow run')
    .argument('<trigger>', 'trigger id or name (a name is resolved by listing the triggers once)')
    .option('-e, --email <email>', "the lead's email (fills the form's email field)")
    .option('-f, --field <key=value>', 'a form response; repeatable; select fields take an option value (or its exact label)', collect)
    .option('--responses <file>', 'form responses as a JSON object from FILE, or - for stdin (--field wins)')
    .option('--context <key=value>', 'attribution: utmParams (JSON allowed), gclid, pageUrl, referrer, userAgent, ipAddress; repeatable', collect)
    .option('--force', 'fire even when a scheduler outcome for this trigger and email is already remembered')
    .addHelpText(
      'after',
      `
Every fire starts a new workflow run: CRM writes and notifications repeat and routing
fairness counts again. A scheduler outcome is remembered per profile, trigger and email;
when one is held, schedctl shows it instead of firing (exit 0; on a terminal it asks),
unless --force is given.

--json prints the API's result {"executionId", "outcome"}, or
{"status": "reused", "executionId", "outcome", "firedAt"} when a remembered outcome is shown.

Example: schedctl trigger fire "Inbound demo request" --email ada@acme.com --field company=Acme --field region=emea`,
    )
    .action(
      action<FireOptions>(ctx, async ([idOrName], opts) => {
        const r = await run(idOrName ?? '', opts, ctx);
        const ui = await ctx.ui();
        if (r.status === 'reused') {
          const { executionId, outcome, firedAt } = r.remembered;
          if (ctx.globals.json) return ui.json({ status: 'reused', executionId, outcome, firedAt });
          ui.print(outcomeLines({ executionId, outcome }, r.email).join('\n'));
          return;
        }
        if (ctx.globals.json) return ui.json({ executionId: r.result.executionId, outcome: r.result.outcome });
        ui.print(outcomeLines(r.result, r.email).join('\n'));
      }),
    );
}

export async function run(idOrName: string, opts: FireOptions, ctx: Context): Promise<FireRun> {
  const [{ UsageError }, domain, { isValidEmail, parseKeyValues }, { OutcomeMemory }, { scopeOf }] = await Promise.all([
    import('../../errors.js'),
    import('../../domain/triggers.js'),
    import('../../domain/inputs.js'),
    import('../../domain/outcomes.js'),
    import('../../config/target.js'),
  ]);
  // Everything that needs no server is checked first: a typo costs no request.
  const email = opts.email?.trim();
  if (!email) throw new UsageError('missing --email: the lead\'s email is required to fire a trigger', { hint: 'e.g. --email ada@acme.com' });
  if (!isValidEmail(email)) throw new UsageError(`invalid --email "${email}": not a valid email address`);
  const fields = parseKeyValues(opts.field ?? [], '--field');
  const context = domain.parseContext(opts.context ?? []);
  const fromFile = opts.responses === undefined ? undefined : await readResponsesFile(opts.responses, ctx);

  const target = await ctx.target();
  const trigger = await loadTrigger(ctx, idOrName);
  const responses = domain.buildResponses(trigger, { email, fields, ...(fromFile ? { fromFile } : {}) });

  const ui = await ctx.ui();
  const memory = new OutcomeMemory(ctx.configDir());
  const scope = scopeOf(target);
  const remembered = memory.get(scope, trigger.id, email);
  if (remembered && !opts.force) {
    for (const line of reuseWarning(remembered, trigger)) ui.warn(line);
    if (!(ctx.canPrompt() && !ctx.globals.json && (await confirmFireAgain(ctx)))) {
      return { status: 'reused', trigger, email, remembered };
    }
  }

  ui.info(`firing "${trigger.name}" for ${email} ${target.profileName ? `on profile ${target.profileName}` : 'with the key from SCHEDCTL_API_KEY'} at ${target.baseUrl}`);
  const api = await ctx.api();
  const { fireTrigger } = await import('../../domain/fire.js');
  const result = await fireTrigger(api, trigger, { email, responses, ...(context ? { context } : {}) });
  memory.remember(scope, trigger.id, email, { executionId: result.executionId, outcome: result.outcome, firedAt: ctx.clock.now().toISOString() });
  return { status: 'fired', trigger, email, result };
}

async function readResponsesFile(spec: string, ctx: Context): Promise<Record<string, unknown>> {
  const [{ readJsonInput }, { UsageError }] = await Promise.all([import('../../ui/json-input.js'), import('../../errors.js')]);
  const value = await readJsonInput(spec, '--responses', ctx.io.stdin, true);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new UsageError('--responses must hold a JSON object of field names to values, e.g. {"company": "Acme", "region": "emea"}');
  }
  return value as Record<string, unknown>;
}

async function confirmFireAgain(ctx: Context): Promise<boolean> {
  const { confirm } = await import('@inquirer/prompts');
  return confirm(
    { message: 'Fire again anyway (starts a new workflow run)?', default: false },
    { input: ctx.io.stdin, output: ctx.io.stderr },
  );
}
