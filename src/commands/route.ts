import { Command } from 'commander';
import type { Context } from '../context.js';
import type { RouteResult } from '../domain/route/types.js';
import { action, collect } from './action.js';

export interface RouteOptions {
  trigger?: string;
  email?: string;
  field?: string[];
  slot?: string;
  firstName?: string;
  lastName?: string;
  phone?: string;
  guest?: string[];
  yes?: boolean;
  refire?: boolean;
  tz?: string;
  leadTz?: string;
  days?: string;
}

export interface RouteRun {
  result: RouteResult;
  /** API requests sent by this run (a retried request counts once). */
  requests: number;
  zone: string;
  commandLine: string;
}

export function routeCommand(ctx: Context): Command {
  return new Command('route')
    .description('route a lead and book: fire a trigger, pick a slot, book it (a wizard on a terminal, flags for scripts)')
    .option('--trigger <id-or-name>', 'the trigger to fire (default: pick from a searchable list)')
    .option('--email <email>', "the lead's email (fills the form's email field)")
    .option('--field <key=value>', 'a form response; repeatable; select fields take an option value (or its exact label)', collect)
    .option('--slot <first|time>', 'the time to book: first, or one of the free times (ISO 8601, or a local time read in --tz)')
    .option('--first-name <name>', "lead's first name")
    .option('--last-name <name>', "lead's last name")
    .option('--phone <phone>', "lead's phone")
    .option('--guest <email>', 'additional attendee (repeatable, at most 10)', collect)
    .option('--yes', 'skip the confirmations; after an ended scheduling session (CONFLICT) fire again once by itself')
    .option('--refire', 'fire anew even when a scheduler outcome for this trigger and email is remembered')
    .option('--tz <zone>', 'display time zone and zone of local times (default: the system zone)')
    .option('--lead-tz <zone>', "the lead's time zone: offered in the picker and sent with the booking")
    .option('--days <n>', 'days of free times per page (default 7, at most 63)')
    .addHelpText(
      'after',
      `
On a terminal every missing value is asked for; without one (or with --no-input) a missing
--trigger, --email, --slot or required --field fails at once naming the flag (exit 2).
A full routed booking costs 4 requests: list triggers, fire, slots, book.

Recovery: a taken slot refreshes the times (same reservation); no host: pick another; an
expired hold fetches a new reservation; an ended scheduling session (CONFLICT) offers to fire
again (a new workflow run repeats CRM writes and counts for routing fairness): with --yes once
by itself, without a terminal and without --yes exit 5. A lost booking response is never
retried (exit 7). A remembered scheduler outcome for the trigger and email is reused (scripts:
by default, saving a request; --refire fires anew).

--json prints {"status": "booked"|"already_booked"|"redirect"|"none"|"other", "executionId",
"outcome", "meeting" (or null), "requests", ...}.

Example: schedctl route --trigger "Inbound demo request" --email ada@acme.example \\
           --field company=Acme --field region=emea --slot first --yes`,
    )
    .action(
      action<RouteOptions>(ctx, async (_args, opts) => {
        const r = await run(opts, ctx);
        const ui = await ctx.ui();
        const { routeDocument, routeLines } = await import('./route/print.js');
        if (ctx.globals.json) return ui.json(routeDocument(r));
        ui.print((await routeLines(r)).join('\n'));
      }),
    );
}

export async function run(opts: RouteOptions, ctx: Context): Promise<RouteRun> {
  const [{ parseRouteOptions }, { runRoute }, { flagAsker }, { routeCommandLine }] = await Promise.all([
    import('../domain/route/options.js'),
    import('../domain/route/flow.js'),
    import('../domain/route/flag-asker.js'),
    import('../domain/route/command-line.js'),
  ]);
  // Every flag is checked before any request; without a terminal, so is every missing value we can know.
  const parsed = parseRouteOptions(opts, ctx.clock.now(), ctx.canPrompt());

  const target = await ctx.target();
  const [{ openJournal }, { scopeOf }, { OutcomeMemory }, api, ui, { noticePrinter }] = await Promise.all([
    import('../domain/journal.js'),
    import('../config/target.js'),
    import('../domain/outcomes.js'),
    ctx.api(),
    ctx.ui(),
    import('./route/print.js'),
  ]);
  let requests = 0;
  const counted = <A extends unknown[], R>(fn: (...a: A) => Promise<R>) => (...a: A) => {
    requests += 1;
    return fn(...a);
  };
  const terminal = ctx.canPrompt()
    ? await (await import('./route/prompts.js')).promptAsker(ctx, { zone: parsed.zone, leadZone: parsed.leadZone })
    : undefined;
  const result = await runRoute({
    api: { listTriggers: counted(api.listTriggers), fireTrigger: counted(api.fireTrigger), slots: counted(api.slots), book: counted(api.book) },
    asker: flagAsker(parsed.flags, terminal),
    notify: await noticePrinter({ ui, json: ctx.globals.json, target, zone: parsed.zone, yes: parsed.flags.yes }),
    journal: await openJournal(ctx.configDir()),
    outcomes: new OutcomeMemory(ctx.configDir()),
    scope: scopeOf(target),
    now: () => ctx.clock.now(),
    days: parsed.days,
    leadTimezone: parsed.leadZone,
  });
  return {
    result,
    requests,
    zone: parsed.zone,
    commandLine: routeCommandLine(result, { profile: ctx.globals.profile, leadTz: parsed.leadZone }),
  };
}
