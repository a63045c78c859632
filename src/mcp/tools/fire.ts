/** fire_trigger: the CLI's `trigger fire`, reusing a remembered scheduler outcome for the same answers. */
import * as z from 'zod/v4';
import { isValidEmail } from '../../domain/inputs.js';
import { UsageError } from '../../errors.js';
import { fireOrReuse } from '../../run/trigger/fire.js';
import { outcomeText } from '../format.js';
import { OUTPUT } from '../output.js';
import { BUDGET, defineTool } from '../tool.js';
import { emailInput, fieldsInput, stringFields, TRIGGER_INPUT } from './inputs.js';

const FIRE_LOST =
  'do not call fire_trigger again for this lead blindly: the workflow run may have started, and every fire repeats its CRM writes and notifications; check the run in the workflow history first';

export const fireTriggerTool = defineTool({
  name: 'fire_trigger',
  title: 'Fire an API trigger (starts a workflow run)',
  description:
    'Fires an API trigger for a lead: it starts a workflow run and returns an executionId and an outcome: scheduler (the lead can book: pass outcome.schedulingLinkId as event to find_slots and book_meeting, with execution_id), redirect (a URL to send the lead to) or none. The fields are checked against the trigger\'s form before anything is sent. Every fire starts a new workflow run that repeats the workflow\'s CRM writes and notifications and counts against routing fairness, so when a scheduler outcome is already held for the same trigger, email and answers it is returned instead (status "reused", nothing fired); set force: true only when the person explicitly wants a new run. After an OUTCOME_UNKNOWN error do not call it again: the run may have started. Costs 2 API requests (trigger list + fire), 1 when reused (' +
    BUDGET +
    '). To route and book in one step use route_lead instead.',
  input: {
    trigger: TRIGGER_INPUT,
    email: emailInput("the lead's email (fills the form's email field)").trim(),
    fields: fieldsInput,
    force: z
      .boolean()
      .optional()
      .describe(
        'fire even when a scheduler outcome for the same answers is held (starts a new workflow run; repeats CRM writes)',
      ),
  },
  flags: { email: '--email', fields: '--field', force: '--force' },
  output: OUTPUT.fire_trigger,
  // Not idempotent: a call that fires (force, changed answers, no remembered outcome) starts a new workflow run.
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  async run(call, args) {
    if (!isValidEmail(args.email)) throw new UsageError(`invalid --email "${args.email}": not a valid email address`);
    const input = {
      idOrName: args.trigger,
      email: args.email,
      fields: stringFields(args.fields),
      force: Boolean(args.force),
    };
    call.lostHint = FIRE_LOST;
    const warnings: string[] = [];
    const r = await fireOrReuse(call.ctx, input, { warn: (line) => warnings.push(line), info: () => undefined });
    // A reuse is said in this tool's words by outcomeText (the CLI's warning speaks of --force).
    if (!('status' in r.document)) call.notes.push(...warnings);
    return { doc: r.document, text: outcomeText(r.document, r.email) };
  },
});
