/**
 * route_lead: the routed booking in one call, with no prompts. It is the CLI's scriptable
 * `route --trigger … --email … --slot …` (src/run/route.ts): the same flow (runRoute), the same
 * flag answers (flagAsker without a terminal: reuse a remembered outcome, confirmations implied
 * by the call), the same lead guard and --json document. `refire_on_conflict` is `--yes`'s one
 * effect without a terminal: after an ended scheduling session, fire again once.
 */
import * as z from 'zod/v4';
import type { RouteNotice } from '../../domain/route/types.js';
import { MAX_SLOTS_RANGE_DAYS } from '../../limits.js';
import { routeParsed } from '../../run/route.js';
import { parseRouteOptions } from '../../run/route/options.js';
import { noticePrinter, routeDocument } from '../../run/route/print.js';
import { routeText } from '../format.js';
import { OUTPUT } from '../output.js';
import { BUDGET, defineTool } from '../tool.js';
import { emailInput, fieldsInput, LEAD_DETAILS, stringFields, timeInput, TRIGGER_INPUT, TZ } from './inputs.js';

const FLAGS = {
  trigger: '--trigger',
  email: '--email',
  fields: '--field',
  slot: '--slot',
  guests: '--guest',
  first_name: '--first-name',
  last_name: '--last-name',
  phone: '--phone',
  tz: '--tz',
  lead_tz: '--lead-tz',
  days: '--days',
  'refire_on_conflict: true': '--yes',
  'force_fire: true': '--refire',
  'rebook: true': '--rebook',
};

const BOOK_LOST =
  'the booking almost certainly happened: do not book this lead another way. To learn the outcome, call route_lead again with exactly the same arguments: it sends the recorded attempt again (same reservation and workflow run), which answers status already_booked and cannot create a second meeting';
const FIRE_LOST =
  'no answer to firing the trigger: the workflow run may have started. Calling route_lead again fires it again (a new run repeats CRM writes and notifications): check the workflow history first';

export const routeLeadTool = defineTool({
  name: 'route_lead',
  title: 'Route a lead and book a meeting',
  description:
    "The whole routed booking in one call, with no questions asked: looks up the trigger, fires it for the lead with the given fields (or reuses the scheduler outcome remembered for the same trigger, email and answers: no new workflow run), fetches the free times of the hosts the workflow chose, and books slot ('first' = the earliest free time, or a time in ISO 8601 or as people say it, read in tz). It books a real meeting and sends invitations: call it only when the person asked to book. Repeating the same call never books twice: it answers status already_booked (the lead's meeting on record, or, after a lost answer, the recorded attempt sent again). A redirect or none outcome comes back as the status, with nothing booked. If the workflow's scheduling session has ended (CONFLICT) it fires again once only with refire_on_conflict: true (a new run repeats CRM writes). Costs 4 API requests: triggers, fire, slots, book (3 when an outcome is reused; 1 more slots request per further days window searched for a later slot; " +
    BUDGET +
    ').',
  input: {
    trigger: TRIGGER_INPUT,
    email: emailInput("the lead's email"),
    fields: fieldsInput,
    slot: timeInput(
      "'first' (the earliest free time), or the time to book: ISO 8601, or as people say it ('tomorrow 15:00'), read in tz",
    ),
    ...LEAD_DETAILS,
    tz: TZ,
    days: z
      .number()
      .int()
      .min(1)
      .max(MAX_SLOTS_RANGE_DAYS)
      .optional()
      .describe('days of free times per slots request (default 7)'),
    refire_on_conflict: z
      .boolean()
      .optional()
      .describe("if the workflow run's scheduling session has ended, fire the trigger again once (repeats CRM writes)"),
    force_fire: z
      .boolean()
      .optional()
      .describe('fire anew even when a scheduler outcome for this trigger, email and answers is remembered'),
    rebook: z
      .boolean()
      .optional()
      .describe(
        'book even when the lead already has an upcoming meeting from this trigger (only when the person wants a second meeting)',
      ),
  },
  flags: FLAGS,
  output: OUTPUT.route_lead,
  // Not idempotent: a call that fires starts a workflow run (CRM writes, routing fairness), even when it books nothing.
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  async run(call, args) {
    const { ctx } = call;
    const parsed = await parseRouteOptions(
      {
        trigger: args.trigger,
        email: args.email,
        slot: args.slot,
        firstName: args.first_name,
        lastName: args.last_name,
        phone: args.phone,
        guest: args.guests,
        yes: args.refire_on_conflict,
        refire: args.force_fire,
        rebook: args.rebook,
        tz: args.tz,
        leadTz: args.lead_tz,
        days: args.days === undefined ? undefined : String(args.days),
      },
      ctx.clock.now(),
      false,
    );
    parsed.flags.fields = stringFields(args.fields);
    const [target, ui] = await Promise.all([ctx.target(), ctx.ui()]);
    // The CLI's notices (warnings only, as with --json) become the call's notes (in tool words: ../call.ts).
    const print = noticePrinter({ ui, json: true, target, zone: parsed.zone, yes: parsed.flags.yes });
    const notify = (n: RouteNotice) => {
      if (n.type === 'booking' || n.type === 'resolving') {
        call.lostHint = BOOK_LOST;
        call.booking = 'route_lead';
      }
      if (n.type === 'firing') {
        call.lostHint = FIRE_LOST;
        call.booking = undefined;
      }
      print(n);
    };
    const { result, requests } = await routeParsed(ctx, parsed, {
      rebook: Boolean(args.rebook),
      notify,
      again: 'route_lead with the same arguments plus',
      noPrompt: true,
    });
    call.notes.push(...(result.warnings ?? []));
    const doc = routeDocument({ result, requests, zone: parsed.zone, commandLine: '' });
    return { doc, text: routeText(doc, parsed.zone) };
  },
});
