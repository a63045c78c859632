/** The read-only tools: triggers, events, and the local record of meetings. */
import * as z from 'zod/v4';
import { resolveZone } from '../../domain/time.js';
import { MAX_EVENTS_PAGE } from '../../limits.js';
import { listMeetings, parseMeetingsFilter } from '../../run/meetings/ls.js';
import { eventsText, eventText, meetingsText, triggersText } from '../format.js';
import { OUTPUT, PAGE, pageOf } from '../output.js';
import { ANNOTATIONS, BUDGET, defineTool } from '../tool.js';
import { BOUNDS, emailInput, idInput, nonEmpty, timeInput, TZ } from './inputs.js';

export const listTriggers = defineTool({
  name: 'list_triggers',
  title: 'List API triggers',
  description:
    "Lists the workspace's API triggers (the published workflows a lead can be routed through) with the form fields each expects: name, label, type, whether it is required, and for select fields the option values to send. Call it to learn a trigger's exact name and required fields before fire_trigger or route_lead. Costs 1 API request (" +
    BUDGET +
    '); the list rarely changes, so call it once per conversation, not before every action. Read-only.',
  input: {},
  output: OUTPUT.list_triggers,
  annotations: ANNOTATIONS.read,
  async run({ ctx }) {
    const list = await (await ctx.api()).listTriggers();
    return { doc: list, text: triggersText(list) };
  },
});

export const listEvents = defineTool({
  name: 'list_events',
  title: 'List bookable events',
  description:
    "Lists the organization's bookable events, newest first, one page at a time: name, slug, id, duration in minutes, slot increment and conferencing type. A slug or id works with show_event, find_slots and book_meeting. Costs 1 API request per page (" +
    BUDGET +
    '); pass the returned nextCursor as cursor only when you need the next page (an empty nextCursor means this was the last one). Read-only.',
  input: {
    limit: z
      .number()
      .int()
      .min(1)
      .max(MAX_EVENTS_PAGE)
      .optional()
      .describe(`page size, 1 to ${MAX_EVENTS_PAGE} (default: the server's)`),
    cursor: z.string().min(1).max(BOUNDS.cursor).optional().describe('nextCursor of the previous page'),
  },
  output: OUTPUT.list_events,
  annotations: ANNOTATIONS.read,
  async run({ ctx }, args) {
    const page = await (
      await ctx.api()
    ).listEvents({
      ...(args.cursor ? { cursor: args.cursor } : {}),
      ...(args.limit ? { limit: args.limit } : {}),
    });
    const doc = { events: page.events, nextCursor: page.nextCursor ?? '' };
    return { doc, text: eventsText(doc) };
  },
});

export const showEvent = defineTool({
  name: 'show_event',
  title: 'Show one event',
  description:
    "Shows one event's booking configuration by id or slug: duration, conferencing, hosts, and the questions asked at booking (required ones, select options, and whether a work email is required, in which case booking a personal address such as gmail.com fails). A scheduling link id or slug resolves too and shows the link's hosts. Costs 1 API request (" +
    BUDGET +
    '). Read-only.',
  input: { event: nonEmpty('event id or slug, or a scheduling link id or slug') },
  output: OUTPUT.show_event,
  annotations: ANNOTATIONS.read,
  async run({ ctx }, args) {
    const detail = await (await ctx.api()).getEvent(args.event);
    return { doc: detail, text: eventText(detail) };
  },
});

export const listMeetingsTool = defineTool({
  name: 'list_meetings',
  title: 'List meetings on record',
  description:
    "Lists the meetings booked or moved through schedctl with this profile, from schedctl's local record (the API has no list operation, so meetings booked elsewhere are not included). By default only upcoming ones; filter by the lead's email, the event or scheduling link (its id or slug; routed meetings too), words of the title, lead or event (text: all must occur, any case), or a from/to range (ISO 8601, or as people say them such as 'tomorrow' or 'next monday', read in tz); all: true includes past meetings (an upcoming meeting the API answered 404 to a move for is listed with goneAt: deleted, of another account, or a gateway's mistake; the record keeps it). Earliest first, one page at a time: at most limit meetings (default " +
    PAGE.default +
    ', at most ' +
    PAGE.max +
    '); total says how many match, and nextOffset, passed back as offset, gives the next page. An entry whose id is null is a booking whose answer was lost: source recovered, a retry proved it booked (move it with reschedule_meeting and the id from the scheduling app); source unresolved (status unknown), it was sent and almost certainly booked, and the same booking sent again confirms it (confirm says how). Costs no API request, except one read for an event slug schedctl has not seen. Read-only.',
  input: {
    email: emailInput("only this lead's meetings").optional(),
    event: idInput('only meetings of this event or scheduling link (its id or slug)').optional(),
    text: z
      .string()
      .max(500)
      .optional()
      .describe('only meetings whose title, lead or event contains all these words (case-insensitive)'),
    from: timeInput('only meetings at or after this time (also includes past ones)').optional(),
    to: timeInput('only meetings before this time (a date alone: through its end)').optional(),
    all: z.boolean().optional().describe('include past meetings and gone ones'),
    tz: TZ.describe('IANA time zone of from/to and of the times shown (default: the system zone)'),
    offset: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe('skip this many meetings (nextOffset of the previous call; default 0)'),
    limit: z
      .number()
      .int()
      .min(1)
      .max(PAGE.max)
      .optional()
      .describe(`at most this many meetings, earliest first (default ${PAGE.default}, at most ${PAGE.max})`),
  },
  flags: { email: '--email', from: '--from', to: '--to', tz: '--tz' },
  output: OUTPUT.list_meetings,
  annotations: ANNOTATIONS.local,
  async run({ ctx }, args) {
    const zone = resolveZone(args.tz, '--tz');
    const { limit, offset, ...filterArgs } = args;
    const filter = await parseMeetingsFilter(filterArgs, zone, ctx.clock.now());
    // structuredContent is an object: one page of the `meetings ls --json` array, under `meetings`.
    const doc = meetingsDocument(await listMeetings(ctx, filter), offset, limit);
    return { doc, text: meetingsText(doc, zone) };
  },
});

/** list_meetings' document (and the meetings resources'): one page of the meetings, and where the next starts. */
export function meetingsDocument<T>(all: T[], offset?: number, limit?: number) {
  const { items, ...page } = pageOf(all, offset, limit);
  return { meetings: items, ...page };
}
