import { Command } from 'commander';
import type { Context } from '../context.js';
import type { BookResult } from '../domain/booking.js';
import { action, collect } from './action.js';

export interface BookOptions {
  start?: string;
  reservation?: string;
  email?: string;
  execution?: string;
  firstName?: string;
  lastName?: string;
  phone?: string;
  guest?: string[];
  leadTz?: string;
  response?: string[];
  tz?: string;
}

export const MAX_GUESTS = 10;

export function bookCommand(ctx: Context): Command {
  return new Command('book')
    .description('book a slot, consuming its reservation (never books twice after a lost response)')
    .argument('<event-or-link>', 'the same event or scheduling link id/slug used to fetch slots')
    .option('--start <time>', 'start time: one of the slots (ISO 8601, or a local time read in --tz)')
    .option('--reservation <id>', 'reservationId from `schedctl slots`')
    .option('--email <email>', "the lead's email (with --execution: the email the trigger was fired with)")
    .option('--execution <id>', 'workflow executionId from `schedctl trigger fire` (links and resumes the run)')
    .option('--first-name <name>', "lead's first name")
    .option('--last-name <name>', "lead's last name")
    .option('--phone <phone>', "lead's phone")
    .option('--guest <email>', 'additional attendee (repeatable, at most 10)', collect)
    .option('--lead-tz <zone>', "the lead's time zone (IANA name)")
    .option('--response <key=value>', 'answer to an event question (repeatable)', collect)
    .option('--tz <zone>', 'display time zone and zone of local times (default: the system zone)')
    .addHelpText(
      'after',
      '\nA timeout or dropped connection is never retried (exit 7): the booking almost certainly happened.\nRunning the same command again then reports "already booked" (exit 0) instead of booking twice.\nExample: schedctl book intro-call --start 2026-12-01T14:00:00Z --reservation <id> --email lead@company.com',
    )
    .action(
      action<BookOptions>(ctx, async ([event], opts) => {
        const zone = await displayZone(opts.tz);
        let outcome: { result: BookResult; request: { event: string; reservationId: string } };
        try {
          outcome = await run(event ?? '', opts, ctx);
        } catch (error) {
          await explainSlotTaken(error, ctx, zone);
          throw error;
        }
        const ui = await ctx.ui();
        const { result } = outcome;
        if (result.status === 'already_booked') {
          const a = result.attempt;
          if (ctx.globals.json) {
            return ui.json({
              status: 'already_booked',
              code: result.code,
              reservationId: a.reservationId,
              workflowExecutionId: a.workflowExecutionId,
              event: a.event,
              startTime: a.startTime,
              meetingId: a.meetingId ?? null,
            });
          }
          const { formatInZone } = await import('../domain/time.js');
          ui.print(
            `Already booked: the earlier attempt at ${formatInZone(a.attemptedAt, zone)} (reservation ${a.reservationId}${a.workflowExecutionId ? `, workflow run ${a.workflowExecutionId}` : ''}) did book the meeting${a.meetingId ? ` ${a.meetingId}` : ''} at ${formatInZone(a.startTime, zone)} for ${a.personEmail}; the API answered ${result.code} to this retry, so no second meeting was created.`,
          );
          return;
        }
        if (ctx.globals.json) return ui.json(result.meeting);
        const { describeMeeting } = await import('../ui/meeting-view.js');
        ui.print(describeMeeting(result.meeting, zone, 'Booked'));
        ui.info(`\nTo move it: schedctl reschedule ${result.meeting.id} --start <time>`);
      }),
    );
}

async function displayZone(tz: string | undefined): Promise<string> {
  const { resolveZone } = await import('../domain/time.js');
  return resolveZone(tz, '--tz');
}

/** Human lines for a meeting: the time in the display zone and in UTC, status, link, title. */
/** Human mode: list the nearest free times of a SLOT_TAKEN (the error line itself comes from the reporter). */
async function explainSlotTaken(error: unknown, ctx: Context, zone: string): Promise<void> {
  if (ctx.globals.json) return;
  const { SlotTakenError } = await import('../domain/booking.js');
  if (!(error instanceof SlotTakenError) || error.nearestSlots.length === 0) return;
  const { formatInZone } = await import('../domain/time.js');
  ctx.io.stderr.write(`Nearest free times (reservation ${error.reservationId} is still usable):\n`);
  for (const s of error.nearestSlots) ctx.io.stderr.write(`  ${formatInZone(s, zone)}   --start ${s}\n`);
}

export async function run(event: string, opts: BookOptions, ctx: Context) {
  const { UsageError } = await import('../errors.js');
  const { resolveZone, parseTimeInput } = await import('../domain/time.js');
  const { requireUuid, requireEmail, parseKeyValues } = await import('../domain/inputs.js');
  if (!event.trim()) throw new UsageError('missing <event-or-link>: pass the event or scheduling link you fetched slots for');
  const zone = resolveZone(opts.tz, '--tz');
  const need = (value: string | undefined, flag: string, what: string) => {
    if (value === undefined || value.trim() === '') throw new UsageError(`missing ${flag}: ${what}`);
    return value;
  };
  const startInput = need(opts.start, '--start', 'pass one of the times `schedctl slots` lists');
  const start = parseTimeInput(startInput, { zone, now: ctx.clock.now(), flag: '--start' });
  const reservationId = requireUuid(need(opts.reservation, '--reservation', 'pass the reservationId `schedctl slots` printed'), '--reservation', 'reservation');
  const personEmail = requireEmail(need(opts.email, '--email', "pass the lead's email"), '--email');
  const workflowExecutionId = opts.execution !== undefined ? requireUuid(opts.execution, '--execution', 'workflow execution') : undefined;
  const guests = opts.guest ?? [];
  if (guests.length > MAX_GUESTS) throw new UsageError(`too many --guest values (${guests.length}): at most ${MAX_GUESTS} guests`);
  const guestEmails = guests.map((g) => requireEmail(g, '--guest'));
  const leadTimezone = opts.leadTz !== undefined ? resolveZone(opts.leadTz, '--lead-tz') : undefined;
  const responses = opts.response?.length ? parseKeyValues(opts.response, '--response') : undefined;

  const request = {
    startTime: start.toISOString(),
    reservationId,
    event,
    personEmail,
    ...(opts.firstName !== undefined ? { guestFirstName: opts.firstName } : {}),
    ...(opts.lastName !== undefined ? { guestLastName: opts.lastName } : {}),
    ...(opts.phone !== undefined ? { guestPhone: opts.phone } : {}),
    ...(guestEmails.length ? { guestEmails } : {}),
    ...(leadTimezone !== undefined ? { leadTimezone } : {}),
    ...(responses ? { responses } : {}),
    ...(workflowExecutionId !== undefined ? { workflowExecutionId } : {}),
  };

  const target = await ctx.target();
  const ui = await ctx.ui();
  // It changes something: say where, before it happens.
  if (!ctx.globals.json) ui.info(`Booking on ${target.profileName ? `profile "${target.profileName}"` : 'SCHEDCTL_API_KEY'} at ${target.baseUrl}`);
  const [{ openJournal }, { scopeOf }, { bookSlot }, api] = await Promise.all([
    import('../domain/journal.js'),
    import('../config/target.js'),
    import('../domain/booking.js'),
    ctx.api(),
  ]);
  const journal = await openJournal(ctx.configDir());
  const scope = scopeOf(target);
  const fireAgain = await fireAgainFinder(ctx.configDir(), scope);
  const { OutcomeMemory } = await import('../domain/outcomes.js');
  const outcomes = new OutcomeMemory(ctx.configDir());
  const result = await bookSlot({ api, journal, scope, now: () => ctx.clock.now(), fireAgain, outcomes }, request);
  return { result, request };
}

/**
 * When a run's scheduling session ended, its remembered scheduler outcome (kept by
 * `trigger fire`) is dead: forget it, so firing again needs no --force, and name the trigger.
 */
async function fireAgainFinder(configDir: string, scope: string) {
  const { OutcomeMemory } = await import('../domain/outcomes.js');
  const { openJsonStore } = await import('../config/store.js');
  return (executionId: string, email: string): string | undefined => {
    const store = openJsonStore<{ outcomes: Record<string, { executionId: string; triggerId: string; email: string }> }>(configDir, 'outcomes', { outcomes: {} });
    const held = Object.values(store.get('outcomes') ?? {}).find((o) => o.executionId === executionId);
    if (!held) return undefined;
    new OutcomeMemory(configDir).forget(scope, held.triggerId, held.email);
    return `schedctl trigger fire ${held.triggerId} --email ${email} --field ... (the same form responses)`;
  };
}
