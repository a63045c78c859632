import { workspaceOf } from './workspace.js';
import type { Trigger } from '../api/schemas.js';
import type { Context } from '../context.js';
import { runRoute, type RouteLead, type RouteLedger } from '../domain/route/flow.js';
import type { RouteAsker, RouteNotice } from '../domain/route/types.js';
import { setInterruptNote } from '../interrupt-note.js';
import { UsageError } from '../errors.js';
import { BATCH_ONLY_FLAGS, batchFile } from './bulk/batch.js';
import { routeBatch } from './bulk/route-batch.js';
import { askLeadRecord, guardLead, leadWaitPrinter, type AskedRecord } from './lead-guard.js';
import { fireJournalOf } from './trigger/fire-journal.js';
import type { HeldLock, State } from '../state/index.js';
import { routeCommandLine } from './route/command-line.js';
import { flagAsker } from './route/flag-asker.js';
import { type ParsedRouteOptions, parseRouteOptions, type RouteOptionsInput } from './route/options.js';
import { noticePrinter, routeDocument, routeLines } from './route/print.js';
import type { RouteRun } from './route/types.js';
import { FIRE_FLAGS } from './trigger/flag-names.js';

interface RouteFlagsWithBatch extends RouteOptionsInput {
  file?: string;
  from?: string;
  dryRun?: boolean;
  skipInvalid?: boolean;
  out?: string;
}

export async function run(ctx: Context, _args: string[], opts: RouteFlagsWithBatch): Promise<void> {
  const file = batchFile(opts);
  if (file !== undefined) {
    const { days } = await parseRouteOptions({ tz: opts.tz, days: opts.days }, ctx.clock.now(), true);
    return routeBatch(ctx, routeParsed, {
      from: file,
      trigger: opts.trigger,
      tz: opts.tz,
      days,
      dryRun: opts.dryRun,
      skipInvalid: opts.skipInvalid,
      out: opts.out,
      rebook: opts.rebook,
    });
  }
  if (opts.dryRun || opts.skipInvalid || opts.out) throw new UsageError(BATCH_ONLY_FLAGS);
  const r = await route(ctx, opts);
  const ui = await ctx.ui();
  for (const warning of r.result.warnings ?? []) ui.warn(warning);
  if (ctx.globals.json) return ui.json(routeDocument(r));
  ui.print(routeLines(r).join('\n'));
}

async function route(ctx: Context, opts: RouteOptionsInput): Promise<RouteRun> {
  // Every flag is checked before any request; without a terminal, so is every missing value we can know.
  const parsed = await parseRouteOptions(opts, ctx.clock.now(), ctx.canPrompt());
  const target = await ctx.target();
  // The wizard's prompts load only when there is a terminal to ask on.
  const terminal = ctx.canPrompt()
    ? (await import('./route/prompts.js')).promptAsker(ctx, { zone: parsed.zone, leadZone: parsed.leadZone, target })
    : undefined;
  const ui = await ctx.ui();
  const print = noticePrinter({ ui, json: ctx.globals.json, target, zone: parsed.zone, yes: parsed.flags.yes });
  let firing: { trigger: string; email: string } | undefined;
  // Ctrl-C once the trigger fired (at the time picker, say) exits 130: it says what was done and how to resume.
  const notify = (n: RouteNotice) => {
    if (n.type === 'firing') firing = { trigger: n.trigger.name, email: n.email };
    if (n.type === 'fired' && firing) setInterruptNote(stoppedAfterFire(firing, n.executionId, n.outcome.type));
    if (n.type === 'booking') setInterruptNote(undefined);
    print(n);
  };
  try {
    const done = await routeParsed(ctx, parsed, {
      rebook: Boolean(opts.rebook),
      terminal,
      notify,
      again: 'the same schedctl route command with',
    });
    setInterruptNote(undefined);
    return done;
  } catch (error) {
    // A refusal or failure says what happened itself; only Ctrl-C (a prompt's cancel) keeps the note.
    if (!(error instanceof Error && error.name === 'ExitPromptError')) setInterruptNote(undefined);
    throw error;
  }
}

/** What a route stopped after its fire has done, and how to go on without firing again. */
export function stoppedAfterFire(f: { trigger: string; email: string }, executionId: string, outcome: string): string {
  return [
    `Stopped: trigger "${f.trigger}" was already fired for ${f.email} (workflow run ${executionId}, outcome ${outcome}); nothing was booked.`,
    `To resume: run ${routeCommandLine({ trigger: { name: f.trigger } as Trigger, email: f.email, responses: {}, slot: null, guests: { guests: [] } }).replace(/ --slot first --yes$/, '')} with the same answers (or the wizard again): the workflow run is reused, not fired again.`,
  ].join('\n');
}

export interface RouteParsedOptions {
  rebook: boolean;
  /** The wizard's asker on a terminal; none: every answer comes from the flags. */
  terminal?: RouteAsker | undefined;
  notify: (notice: RouteNotice) => void;
  /** How to book another one anyway, for the lead guard's refusal. */
  again: string;
  /** Never ask (the MCP server, bulk rows). */
  noPrompt?: boolean;
  /** How to name the rebook switch in a refusal's hint (MCP: `rebook: true`). */
  rebookWord?: string;
  /** The trigger list, when the caller has it already (a bulk run lists them once for the file). */
  triggers?: Trigger[] | undefined;
  /** How long to wait for the lead when another run holds it (a bulk row's first try: 0). */
  leadWaitMs?: number | undefined;
}

/** One routed booking from parsed options: shared by `schedctl route` and the MCP server's route_lead. */
export async function routeParsed(ctx: Context, parsed: ParsedRouteOptions, o: RouteParsedOptions): Promise<RouteRun> {
  const [api, state] = await Promise.all([ctx.api(), ctx.state()]);
  // The workspace first: on a team state its read carries the schema check (one round trip for
  // both), and assertWritable then stands on that fresh answer instead of asking again.
  const scope = await workspaceOf(ctx);
  // Outcomes, attempts and meetings are written along the way: refuse before any request when they cannot be.
  await state.assertWritable();
  // A route without questions sends its requests one after another (list triggers, fire, slots,
  // book): drawn from the rate budget at once, one round trip to a team state instead of four.
  // A bulk row (the triggers known) draws them before it takes its lead, waiting for room there:
  // a lead is then held only while its requests go out, not while the budget fills up (another
  // machine of the team waits for it meanwhile); what it did not send goes back at its end.
  const http = await ctx.http();
  if (o.triggers) await http.reserve?.(3);
  else if (!o.terminal) http.drawAhead?.(4);
  let requests = 0;
  const counted =
    <A extends unknown[], R>(fn: (...a: A) => Promise<R>) =>
    (...a: A) => {
      requests += 1;
      return fn(...a);
    };
  const triggers = o.triggers;
  // The trigger list, a read that needs no lead's lock, is asked while the lock is taken (on a
  // team state its own connection: the two round trips overlap); the route's first use of it
  // waits for this answer, and reports its failure.
  let early = triggers ? undefined : counted(api.listTriggers)();
  early?.catch(() => {});
  const listTriggers = triggers
    ? async () => ({ triggers })
    : () => {
        const first = early;
        early = undefined;
        return first ?? counted(api.listTriggers)();
      };
  let unansweredFires: { sentAt?: string | undefined }[] | undefined;
  const notify = (n: RouteNotice) => {
    if (n.type === 'unanswered_fires') unansweredFires = n.fires.map((f) => ({ sentAt: f.sentAt }));
    o.notify(n);
  };
  // What a fire's answer left for a booking that did not follow lands before the lead's lock is
  // given back (runRoute's end: the ledger's settle), so a run waiting for the lead finds it.
  const routeLead = async (held: HeldLock | undefined) =>
    runRoute({
      api: {
        listTriggers,
        fireTrigger: counted(api.fireTrigger),
        slots: counted(api.slots),
        book: counted(api.book),
      },
      asker: flagAsker(parsed.flags, o.terminal),
      notify,
      ledger: routeLedger(state, scope),
      lead: leadHooks(ctx, state, { scope, parsed, o, held }),
      options: {
        fireAhead: !o.terminal,
        scope,
        now: () => ctx.clock.now(),
        days: parsed.days,
        leadTimezone: parsed.leadZone,
        rebook: o.rebook,
        inputNames: FIRE_FLAGS,
      },
    });
  // A lead known up front is routed as the only schedctl booking it (state/lead-lock.ts): a
  // parallel run for the same lead waits, then finds this one's meeting on record. A lead typed
  // into the wizard is held from each booking's confirmation (leadHooks below: holdLead).
  const lead = parsed.flags.email;
  const routed = await (
    lead
      ? state.holdLead({ scope, email: lead }, routeLead, leadWaitPrinter(ctx, lead), o.leadWaitMs)
      : routeLead(undefined)
  ).finally(() => o.triggers && http.giveBack?.());
  const result = unansweredFires ? { ...routed, unansweredFires } : routed;
  return {
    result,
    requests,
    zone: parsed.zone,
    leadZone: parsed.leadZone,
    commandLine: routeCommandLine(result, { profile: ctx.globals.profile, leadTz: parsed.leadZone }),
  };
}

/** The lead's stores, as the route reads and writes them (domain/route/deps.ts RouteLedger). */
function routeLedger(state: State, scope: string): RouteLedger {
  return {
    journal: state.journal,
    outcomes: state.outcomes,
    meetings: state.meetings,
    learnEvent: (event, eventId) => state.events.learn(scope, event, eventId),
    learnEventWrite: (event, eventId) => state.events.learnWrite(scope, event, eventId),
    fireJournal: (trigger, email, answersKey) =>
      fireJournalOf(state, { scope, triggerId: trigger.id, email, answersKey }),
    unansweredFires: (trigger, email, except) => state.fires.unanswered(scope, email, trigger.id, except),
    settle: () => state.flush(),
  };
}

/** The lead session's hooks for a route: the lead rule (run/lead-guard.ts) and the lead's hold. */
function leadHooks(
  ctx: Context,
  state: State,
  r: { scope: string; parsed: ParsedRouteOptions; o: RouteParsedOptions; held: HeldLock | undefined },
): RouteLead {
  const { scope, parsed, o, held } = r;
  return {
    askGuard: (email) => askLeadRecord(ctx, state, scope, email),
    guard: ({ trigger, email, answersKey, asked }) =>
      guardLead(ctx, state, {
        scope,
        email,
        intent: {
          kind: 'route',
          triggerId: trigger.id,
          answersKey,
          start: parsed.flags.slot instanceof Date ? parsed.flags.slot : 'first',
        },
        zone: parsed.zone,
        rebook: o.rebook,
        again: o.again,
        asked: asked as AskedRecord | undefined,
        ...(o.rebookWord ? { rebookWord: o.rebookWord } : {}),
        ...(o.noPrompt ? { noPrompt: true } : {}),
      }),
    assertHeld: held ? () => held.assertHeld() : undefined,
    // A lead typed into the wizard is held from each booking's confirmation (not before: the
    // lock would outlast a conversation nobody may finish).
    holdLead: held
      ? undefined
      : (email, work) =>
          state.holdLead({ scope, email }, (h) => work(async () => h.assertHeld()), leadWaitPrinter(ctx, email)),
  };
}
