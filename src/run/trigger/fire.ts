import { scopeOf } from '../../config/target.js';
import type { Context } from '../../context.js';
import { fireTrigger } from '../../domain/fire.js';
import { isValidEmail, parseKeyValues } from '../../domain/inputs.js';
import { buildResponses, parseContext } from '../../domain/triggers.js';
import { UsageError } from '../../errors.js';
import { answersKey } from '../../state/index.js';
import { readJsonInput } from '../../ui/json-input.js';
import { loadTrigger } from '../triggers/load.js';
import { outcomeLines, reuseWarning } from './print.js';

export interface FireOptions {
  email?: string;
  field?: string[];
  responses?: string;
  context?: string[];
  force?: boolean;
}

export async function run(ctx: Context, [idOrName = '']: string[], opts: FireOptions): Promise<void> {
  // Everything that needs no server is checked first: a typo costs no request.
  const email = opts.email?.trim();
  if (!email) throw new UsageError("missing --email: the lead's email is required to fire a trigger", { hint: 'e.g. --email ada@acme.com' });
  if (!isValidEmail(email)) throw new UsageError(`invalid --email "${email}": not a valid email address`);
  const fields = parseKeyValues(opts.field ?? [], '--field');
  const context = parseContext(opts.context ?? []);
  const fromFile = opts.responses === undefined ? undefined : await readResponsesFile(opts.responses, ctx);

  const target = await ctx.target();
  const trigger = await loadTrigger(ctx, idOrName);
  const responses = buildResponses(trigger, { email, fields, ...(fromFile ? { fromFile } : {}) });

  const ui = await ctx.ui();
  const { outcomes } = await ctx.state();
  const scope = scopeOf(target);
  // A remembered outcome is shown instead of firing only for the very same answers.
  const key = answersKey(responses, context ?? {});
  const remembered = await outcomes.lookup(scope, trigger.id, email, key);
  if (remembered.kind === 'match' && !opts.force) {
    for (const line of reuseWarning(remembered.outcome, trigger)) ui.warn(line);
    if (!(ctx.canPrompt() && !ctx.globals.json && (await confirmFireAgain(ctx)))) {
      const { executionId, outcome, firedAt } = remembered.outcome;
      if (ctx.globals.json) return ui.json({ status: 'reused', executionId, outcome, firedAt });
      return ui.print(outcomeLines({ executionId, outcome }, email).join('\n'));
    }
  }
  if (remembered.kind === 'different-answers') {
    ui.warn(`the remembered outcome for ${email} (workflow run ${remembered.previous.executionId}) was fired with other answers: firing anew; it will not be reused`);
  }

  ui.info(`firing "${trigger.name}" for ${email} ${target.profileName ? `on profile ${target.profileName}` : 'with the key from SCHEDCTL_API_KEY'} at ${target.baseUrl}`);
  const api = await ctx.api();
  const result = await fireTrigger(api, trigger, { email, responses, ...(context ? { context } : {}) });
  await outcomes.remember(scope, trigger.id, email, { executionId: result.executionId, outcome: result.outcome, firedAt: ctx.clock.now().toISOString(), answersKey: key });
  if (ctx.globals.json) return ui.json({ executionId: result.executionId, outcome: result.outcome });
  ui.print(outcomeLines(result, email).join('\n'));
}

async function readResponsesFile(spec: string, ctx: Context): Promise<Record<string, unknown>> {
  const value = await readJsonInput(spec, '--responses', ctx.io.stdin, true);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new UsageError('--responses must hold a JSON object of field names to values, e.g. {"company": "Acme", "region": "emea"}');
  }
  return value as Record<string, unknown>;
}

async function confirmFireAgain(ctx: Context): Promise<boolean> {
  // The prompts load only when one is shown: scripts never pay for them.
  const { confirm } = await import('@inquirer/prompts');
  return confirm({ message: 'Fire again anyway (starts a new workflow run)?', default: false }, { input: ctx.io.stdin, output: ctx.io.stderr });
}
