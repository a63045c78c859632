import type { FireRequest, Outcome, Trigger, TriggerFireResult } from '../../api/schemas.js';
import { workspaceOf } from '../workspace.js';
import type { Context } from '../../context.js';
import { FiredNotRecordedError, fireTrigger } from '../../domain/fire.js';
import { isValidEmail, parseKeyValues } from '../../domain/inputs.js';
import { buildResponses } from '../../domain/triggers.js';
import { UsageError } from '../../errors.js';
import { answersKey } from '../../state/index.js';
import { readJsonInput } from '../../ui/json-input.js';
import { sanitizeText } from '../../ui/sanitize.js';
import { loadTrigger } from '../triggers/load.js';
import { parseContext } from './context.js';
import { FIRE_FLAGS } from './flag-names.js';
import { fireNotes, outcomeLines, reuseWarning } from './print.js';
import { fireJournalOf } from './fire-journal.js';
import { unansweredFiresLine } from '../route/print.js';
import { formatInZone } from '../../domain/time.js';

export interface FireOptions {
  email?: string;
  field?: string[];
  responses?: string;
  context?: string[];
  force?: boolean;
  /** gh's name for --force: skips the confirmation. */
  yes?: boolean;
}

/** A fire as checked input: the trigger still to resolve (one request), everything else validated. */
export interface FireInput {
  idOrName: string;
  email: string;
  fields: Record<string, string>;
  context?: FireRequest['context'] | undefined;
  fromFile?: Record<string, unknown> | undefined;
  force: boolean;
}

/** The `trigger fire --json` document: the API's fire result, or the remembered outcome reused instead. */
export type FireDocument =
  | {
      executionId: string;
      outcome: Outcome | { type: string };
      /** Earlier fires of this lead and trigger whose answer was lost (each may have started a run). */
      unansweredFires?: { sentAt?: string | undefined }[];
    }
  | { status: 'reused'; executionId: string; outcome: Outcome | { type: string }; firedAt: string };

export interface FireRun {
  trigger: Trigger;
  email: string;
  document: FireDocument;
}

export interface FireHooks {
  warn(line: string): void;
  info(line: string): void;
  /** A scheduler outcome for the same answers is held: fire anyway? (absent: never asked, it is reused) */
  confirmFireAgain?: () => Promise<boolean>;
}

export async function run(ctx: Context, [idOrName = '']: string[], opts: FireOptions): Promise<void> {
  const input = await parseFireOptions(ctx, idOrName, opts);
  const ui = await ctx.ui();
  const canAsk = ctx.canPrompt() && !ctx.globals.json;
  const r = await fireOrReuse(ctx, input, {
    warn: ui.warn,
    info: ui.info,
    ...(canAsk ? { confirmFireAgain: () => confirmFireAgain(ctx) } : {}),
  });
  if (ctx.globals.json) return ui.json(r.document);
  ui.print(outcomeLines(r.document, r.email).join('\n'));
}

/** Everything that needs no server is checked first: a typo costs no request. */
export async function parseFireOptions(ctx: Context, idOrName: string, opts: FireOptions): Promise<FireInput> {
  const email = opts.email?.trim();
  if (!email)
    throw new UsageError("missing --email: the lead's email is required to fire a trigger", {
      hint: 'e.g. --email ada@acme.com',
    });
  if (!isValidEmail(email)) throw new UsageError(`invalid --email "${email}": not a valid email address`);
  const fields = parseKeyValues(opts.field ?? [], '--field');
  const context = parseContext(opts.context ?? []);
  const fromFile = opts.responses === undefined ? undefined : await readResponsesFile(opts.responses, ctx);
  return { idOrName, email, fields, context, fromFile, force: Boolean(opts.force || opts.yes) };
}

/**
 * Fires the trigger, or reuses the scheduler outcome remembered for the very same answers
 * (unless forced, or confirmed): every fire starts a workflow run whose CRM writes repeat.
 * Costs the triggers list (one request), plus the fire when it fires.
 */
export async function fireOrReuse(ctx: Context, input: FireInput, hooks: FireHooks): Promise<FireRun> {
  const { email, context } = input;
  const target = await ctx.target();
  // The outcome must be remembered after the fire: refuse before any request when it cannot be.
  await (await ctx.state()).assertWritable();
  const trigger = await loadTrigger(ctx, input.idOrName);
  const responses = buildResponses(
    trigger,
    { email, fields: input.fields, ...(input.fromFile ? { fromFile: input.fromFile } : {}) },
    FIRE_FLAGS,
  );

  const { outcomes } = await ctx.state();
  const scope = await workspaceOf(ctx);
  // A remembered outcome is shown instead of firing only for the very same answers.
  const key = answersKey(responses, context ?? {});
  const remembered = await outcomes.lookup(scope, trigger.id, email, key);
  if (remembered.kind === 'match' && !input.force) {
    for (const line of reuseWarning(remembered.outcome, trigger)) hooks.warn(line);
    if (!(hooks.confirmFireAgain && (await hooks.confirmFireAgain()))) {
      const { executionId, outcome, firedAt } = remembered.outcome;
      return { trigger, email, document: { status: 'reused', executionId, outcome, firedAt } };
    }
  }
  if (remembered.kind === 'different-answers') {
    hooks.warn(fireNotes.answersChanged(email, remembered.previous.executionId));
  }

  // A fire whose answer was lost may have started a run: said before firing again.
  const state = await ctx.state();
  const unanswered = await state.fires.unanswered(scope, email, trigger.id);
  if (unanswered.length > 0)
    hooks.warn(unansweredFiresLine(unanswered, email, trigger.name, (iso) => formatInZone(iso, 'UTC')));
  hooks.info(fireNotes.firing(trigger.name, email, target));
  const api = await ctx.api();
  let result: TriggerFireResult;
  try {
    // The outcome remembered in the step that records the fire's answer (one round trip on a team state).
    result = await fireTrigger(
      api,
      trigger,
      { email, responses, ...(context ? { context } : {}) },
      fireJournalOf(state, { scope, triggerId: trigger.id, email, answersKey: key }),
      (fired, along) =>
        outcomes.remember(
          scope,
          trigger.id,
          email,
          {
            executionId: fired.executionId,
            outcome: fired.outcome,
            firedAt: ctx.clock.now().toISOString(),
            answersKey: key,
          },
          along,
        ),
    );
  } catch (error) {
    // The run exists and its result is in hand: shown (exit 0), as a booking the server
    // confirmed is, with a warning saying what was not recorded.
    if (!(error instanceof FiredNotRecordedError)) throw error;
    hooks.warn(`${sanitizeText(error.message)}; a repeat fire for these answers will not be recognised`);
    result = error.result;
  }
  return {
    trigger,
    email,
    document: {
      executionId: result.executionId,
      outcome: result.outcome,
      ...(unanswered.length ? { unansweredFires: unanswered.map((f) => ({ sentAt: f.sentAt })) } : {}),
    },
  };
}

async function readResponsesFile(spec: string, ctx: Context): Promise<Record<string, unknown>> {
  const value = await readJsonInput(spec, '--responses', ctx.io.stdin, true);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new UsageError(
      '--responses must hold a JSON object of field names to values, e.g. {"company": "Acme", "region": "emea"}',
    );
  }
  return value as Record<string, unknown>;
}

async function confirmFireAgain(ctx: Context): Promise<boolean> {
  // The prompts load only when one is shown: scripts never pay for them.
  const { confirm } = await import('@inquirer/prompts');
  return confirm(
    { message: 'Fire again anyway (starts a new workflow run)?', default: false },
    { input: ctx.io.stdin, output: ctx.io.stderr },
  );
}
