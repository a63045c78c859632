/** find_slots and book_meeting: the CLI's `slots` and `book`, with the spec's lost-response rules. */
import * as z from 'zod/v4';
import { MAX_SLOTS_DAYS } from '../../limits.js';
import { answers, BOUNDS, emailInput, idInput, LEAD_DETAILS, nonEmpty, plainText, timeInput, TZ } from './inputs.js';
import { bookDocument, bookMeeting, parseBookOptions, type BookOutcome } from '../../run/book.js';
import { workspaceOf } from '../../run/workspace.js';
import type { Context } from '../../context.js';
import type { BookRequest } from '../../api/schemas.js';
import type { SlotsResult } from '../../api/schemas.js';
import { groupByDay, splitRange } from '../../domain/slots.js';
import { formatInZone } from '../../domain/time.js';
import { UsageError } from '../../errors.js';
import { findSlots, parseSlotsOptions, type SlotsRequest } from '../../run/slots.js';
import { bookText, slotsText, type SlotsDoc } from '../format.js';
import { OUTPUT } from '../output.js';
import { BUDGET, defineTool } from '../tool.js';

/** Free times listed per call unless limit says otherwise; the rest are counted by day and left for offset. */
export const SLOTS_LIMIT = 50;
export const MAX_SLOTS_LIMIT = 500;

export const findSlotsTool = defineTool({
  name: 'find_slots',
  title: 'Find free times (places a reservation hold)',
  description:
    "Fetches the free start times of an event or scheduling link in [from, to) and creates or reuses a reservation (a short hold; its reservationId and expiresAt come back), which book_meeting needs. For a lead routed by fire_trigger pass outcome.schedulingLinkId as event: the times are those of the hosts the workflow chose. The range: from (default now), and either to or days (default 7, at most 365); times are ISO 8601 with an offset, or local 'YYYY-MM-DD HH:mm' / 'YYYY-MM-DD' / 'today' / 'tomorrow' read in tz. A range wholly in the past is refused before any request. The answer is bounded: every day with free times (count, first, last) and the first limit times (default " +
    SLOTS_LIMIT +
    ') from offset; nextOffset says where the next ones start. Costs 1 API request per 63 days of range, again for each further page (' +
    BUDGET +
    '); to look further ahead with the same hosts, pass reservation_id back instead of starting a new reservation. Books nothing, but each call without reservation_id places a new hold.',
  input: {
    event: nonEmpty("event id or slug, or scheduling link id (e.g. a fired outcome's schedulingLinkId)"),
    from: timeInput('start of the range (default now)').optional(),
    to: timeInput('end of the range (a date alone: through its end); not with days').optional(),
    days: z
      .number()
      .int()
      .min(1)
      .max(MAX_SLOTS_DAYS)
      .optional()
      .describe('length of the range in days (default 7); not with to'),
    reservation_id: idInput('reuse this reservation (same host selection)').optional(),
    offset: z
      .number()
      .int()
      .min(0)
      .max(100_000)
      .optional()
      .describe('skip this many free times (nextOffset of the previous call; default 0)'),
    limit: z
      .number()
      .int()
      .min(1)
      .max(MAX_SLOTS_LIMIT)
      .optional()
      .describe(`how many free times to list (default ${SLOTS_LIMIT}, at most ${MAX_SLOTS_LIMIT})`),
    tz: TZ,
  },
  flags: {
    from: '--from',
    to: '--to',
    days: '--days',
    reservation_id: '--reservation',
    tz: '--tz',
    event: '<event-or-link>',
  },
  output: OUTPUT.find_slots,
  // Not read-only: without reservation_id every call creates a reservation (a hold on the hosts' times).
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  async run(call, args) {
    const { ctx } = call;
    const now = ctx.clock.now();
    const request = parseSlotsOptions(
      args.event,
      {
        from: args.from,
        to: args.to,
        days: args.days === undefined ? undefined : String(args.days),
        reservation: args.reservation_id,
        tz: args.tz,
      },
      now,
    );
    if (request.to.getTime() <= now.getTime())
      throw new UsageError(
        `the range ${formatInZone(request.from, request.zone)} to ${formatInZone(request.to, request.zone)} is in the past (now is ${formatInZone(now, request.zone)}): no time in it can be booked, and nothing was requested`,
        { hint: 'leave from out (it defaults to now) or pass a from and to in the future' },
      );
    const windows = splitRange(request.from, request.to).length;
    call.progress.total = windows;
    const result = await findSlots(await ctx.api(), request);
    const doc = slotsDocument(result, request, {
      offset: args.offset ?? 0,
      limit: args.limit ?? SLOTS_LIMIT,
      requests: windows,
    });
    return { doc: { ...doc }, text: slotsText(doc, request.from.getTime() < now.getTime()) };
  },
});

/** find_slots' bounded document: the reservation, a summary per day, and one page of the free times. */
export function slotsDocument(
  r: SlotsResult,
  q: SlotsRequest,
  page: { offset: number; limit: number; requests: number },
): SlotsDoc {
  const slots = r.slots.slice(page.offset, page.offset + page.limit);
  const end = page.offset + slots.length;
  return {
    reservationId: r.reservationId,
    expiresAt: r.expiresAt,
    event: q.event,
    from: q.from.toISOString(),
    to: q.to.toISOString(),
    zone: q.zone,
    total: r.slots.length,
    offset: page.offset,
    slots,
    nextOffset: end < r.slots.length ? end : null,
    days: groupByDay(r.slots, q.zone).map((d) => ({
      date: d.day,
      count: d.slots.length,
      first: d.slots[0]!,
      last: d.slots.at(-1)!,
    })),
    requests: page.requests,
  };
}

/**
 * The identical booking (same event, reservation, start and lead) already known to have booked:
 * answered from the ledger, without a request, as the description promises (shared/ledger-rules.md:
 * "the identical request, resolved as booked: answer already_booked, send nothing"). The CLI's
 * bookMeeting sends it again and lets the server's RESERVATION_USED prove it; a booked entry never
 * turns back, so reading it outside the lead's lock is safe.
 */
async function identicalBooked(ctx: Context, request: BookRequest): Promise<BookOutcome | undefined> {
  const scope = await workspaceOf(ctx);
  const prior = await (
    await ctx.state()
  ).journal.findPrior(scope, {
    reservationId: request.reservationId,
    workflowExecutionId: request.workflowExecutionId ?? null,
    startTime: request.startTime,
    personEmail: request.personEmail,
  });
  const identical =
    prior &&
    prior.outcome !== 'unknown' &&
    prior.reservationId === request.reservationId &&
    prior.event === request.event &&
    Date.parse(prior.startTime) === Date.parse(request.startTime);
  return identical ? { status: 'already_booked', code: 'ON_RECORD', attempt: prior, warnings: [] } : undefined;
}

const BOOK_LOST =
  'the booking almost certainly happened: do not book this lead another way. To learn the outcome, call book_meeting again with exactly the same arguments: the reservation is single-use, so it answers status already_booked and cannot create a second meeting';

export const bookMeetingTool = defineTool({
  name: 'book_meeting',
  title: 'Book a meeting',
  description:
    "Books one free time returned by find_slots, consuming its reservation: event (the same event or link used for find_slots), start (one of the returned slots), reservation_id, the lead's email, and execution_id when the times came from a fired trigger (it links and resumes the workflow run; email must then be the email the trigger was fired with). It creates a real meeting and sends invitations: call it only when the person asked to book. Never a second meeting: if the answer is lost (error OUTCOME_UNKNOWN) the booking almost certainly happened, and calling book_meeting again with exactly the same arguments is safe: it answers status already_booked. a SLOT_TAKEN error lists the nearest free times (the same reservation stays usable); RESERVATION_EXPIRED needs find_slots without reservation_id. Costs 1 API request (plus 1 slots request on SLOT_TAKEN), none when the lead already has this meeting on record (" +
    BUDGET +
    ').',
  input: {
    event: nonEmpty('the event or scheduling link id/slug used for find_slots'),
    start: timeInput('start time: one of the slots find_slots returned (ISO 8601), or a local time in tz'),
    reservation_id: idInput('reservationId from find_slots'),
    email: emailInput("the lead's email"),
    execution_id: idInput("the fired trigger's executionId (links and resumes the workflow run)").optional(),
    ...LEAD_DETAILS,
    responses: answers(plainText(BOUNDS.fieldValue)).optional().describe('answers to the event questions, by key'),
    rebook: z
      .boolean()
      .optional()
      .describe(
        'book even when the ledger holds an upcoming meeting of this lead (any event) or a booking whose outcome is unknown (only when the person wants a second meeting)',
      ),
    tz: TZ,
  },
  flags: {
    start: '--start',
    reservation_id: '--reservation',
    email: '--email',
    execution_id: '--execution',
    guests: '--guest',
    first_name: '--first-name',
    last_name: '--last-name',
    phone: '--phone',
    lead_tz: '--lead-tz',
    responses: '--response',
    tz: '--tz',
    event: '<event-or-link>',
  },
  output: OUTPUT.book_meeting,
  // Idempotent: the same call again books nothing more (already_booked: on record, or the spent reservation).
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  async run(call, args) {
    const { ctx } = call;
    const { request, zone } = await parseBookOptions(
      args.event,
      {
        start: args.start,
        reservation: args.reservation_id,
        email: args.email,
        execution: args.execution_id,
        firstName: args.first_name,
        lastName: args.last_name,
        phone: args.phone,
        guest: args.guests,
        leadTz: args.lead_tz,
        response: Object.entries(args.responses ?? {}).map(([k, v]) => `${k}=${v}`),
        tz: args.tz,
      },
      ctx.clock.now(),
    );
    call.lostHint = BOOK_LOST;
    call.booking = 'book_meeting';
    const result =
      (await identicalBooked(ctx, request)) ?? (await bookMeeting(ctx, request, zone, Boolean(args.rebook)));
    if (result.status !== 'on_record') call.notes.push(...result.warnings);
    const doc = bookDocument(result, request);
    return { doc, text: bookText(doc, zone) };
  },
});
