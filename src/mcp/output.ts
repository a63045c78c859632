/**
 * The outputSchema of every tool: the shape of its structuredContent on success. API objects are
 * loose (a server that adds a field stays valid, and the field passes through, as with --json);
 * the fields schedctl itself builds are described exactly. Error results carry no
 * structuredContent (a client validates any structuredContent against this schema): their
 * document is in the text and in `_meta["schedctl/error"]` (./call.ts).
 */
import * as z from 'zod/v4';

const time = () => z.string().describe('ISO 8601 date-time');
const nullable = <T extends z.ZodType>(t: T) => t.nullable();

const option = z.looseObject({ value: z.string(), label: z.string() });
const triggerField = z.looseObject({
  name: z.string(),
  label: z.string(),
  type: z.string(),
  required: z.boolean(),
  options: nullable(z.array(option)),
});
const trigger = z.looseObject({
  id: z.string(),
  name: z.string(),
  description: z.string().nullish(),
  fields: z.array(triggerField),
});
const eventSummary = z.looseObject({
  id: z.string(),
  slug: z.string(),
  name: z.string(),
  duration: z.number(),
  timeslotIncrement: z.number(),
  conferencingType: z.string(),
});
const host = z.looseObject({ name: z.string(), isQueue: z.boolean(), isPrimary: z.boolean() });
const question = z.looseObject({
  id: z.string(),
  type: z.string(),
  title: z.string(),
  isRequired: z.boolean(),
  order: z.number(),
  options: z.array(option),
  requireWorkEmail: z.boolean(),
});
/** The API's Meeting. */
const meetingShape = {
  id: z.string(),
  eventId: z.string(),
  title: z.string(),
  status: z.string(),
  date: time(),
  duration: z.number(),
  meetingLink: nullable(z.string()),
  conferencingType: z.string(),
  location: nullable(z.string()),
  personEmail: z.string(),
  additionalAttendees: z.array(z.string()),
};
/** A booking's result: the same document from book_meeting and route_lead (docs/json-output.md). */
const bookingShape = {
  status: z.string().describe('booked, or already_booked: nothing new was booked (see alreadyBookedCode)'),
  meeting: nullable(z.looseObject(meetingShape)).describe("the API's Meeting; null when only its booking is known"),
  meetingId: nullable(z.string()).describe('the meeting id (also when meeting is null); null: never received'),
  startTime: nullable(time()),
  email: z.string(),
  event: nullable(z.string()).describe('the event or scheduling link booked'),
  reservationId: nullable(z.string()),
  executionId: nullable(z.string()),
  alreadyBookedCode: nullable(z.string()).describe(
    'already_booked: ON_RECORD (on record, nothing sent) or the API code answered to a retry; else null',
  ),
};
/** The scheduler, redirect or none outcome of a fired trigger (or one this schedctl does not know). */
const outcome = z
  .looseObject({
    type: z.string().describe('scheduler | redirect | none (another value: an outcome this schedctl does not know)'),
    schedulingLinkId: z.string().optional().describe('scheduler: pass as event to find_slots and book_meeting'),
    schedulerUrl: z.string().optional(),
    url: z.string().optional().describe('redirect: where the workflow sends the lead'),
  })
  .describe("the workflow's outcome");

/**
 * The one bound of a list in an MCP result: at most PAGE.max items (PAGE.default unless the
 * call says), in the structuredContent and in the text alike, with where the next page starts.
 * A list whose items come from schedctl's record or the API grows without limit; a client's
 * context does not (200 meetings were 150,000 characters).
 */
export const PAGE = { default: 50, max: 100 } as const;

export interface Page<T> {
  items: T[];
  /** How many there are in all. */
  total: number;
  offset: number;
  /** Where the next page starts; null: this was the last. */
  nextOffset: number | null;
}

export function pageOf<T>(all: T[], offset = 0, limit: number = PAGE.default): Page<T> {
  const items = all.slice(offset, offset + Math.min(limit, PAGE.max));
  const end = offset + items.length;
  return { items, total: all.length, offset, nextOffset: end < all.length ? end : null };
}

/** The paging fields of a bounded list's document. */
const paging = {
  total: z.number().int().describe('how many match in all'),
  offset: z.number().int().describe('how many were skipped before this page'),
  nextOffset: nullable(z.number().int()).describe('pass as offset for the next page; null: this was the last'),
};

export const OUTPUT = {
  list_triggers: z.object({ triggers: z.array(trigger) }),
  list_events: z.object({
    events: z.array(eventSummary),
    nextCursor: z.string().describe('pass as cursor for the next page; empty: this was the last page'),
  }),
  show_event: z.looseObject({
    ...eventSummary.shape,
    location: z.string(),
    hosts: z.array(host),
    questions: z.array(question),
  }),
  fire_trigger: z.object({
    status: z
      .literal('reused')
      .optional()
      .describe('present when a remembered outcome was returned: nothing was fired'),
    executionId: z.string().describe('the workflow run: pass as execution_id to book_meeting'),
    outcome,
    firedAt: time().optional().describe('reused: when the remembered run was fired'),
  }),
  find_slots: z.object({
    reservationId: z.string().describe('pass as reservation_id to book_meeting (and to find_slots to keep the hold)'),
    expiresAt: time().describe('book before this instant'),
    event: z.string(),
    from: time(),
    to: time(),
    zone: z.string().describe('the time zone of days'),
    total: z.number().int().describe('free times in [from, to)'),
    offset: z.number().int().describe('how many free times were skipped before slots'),
    slots: z.array(time()).describe('at most limit free times, from offset on'),
    nextOffset: nullable(z.number().int()).describe(
      'pass as offset (with reservation_id) for the next times; null: none left',
    ),
    days: z
      .array(z.object({ date: z.string(), count: z.number().int(), first: time(), last: time() }))
      .describe('every day (in zone) with free times: how many, the first and the last'),
    requests: z.number().int().describe('API requests this call made'),
  }),
  // `book --json`: a booking result (src/documents/schemas.ts bookingResult), the same fields as route_lead's.
  book_meeting: z.object(bookingShape),
  route_lead: z.object({
    ...bookingShape,
    status: z.string().describe('booked | already_booked | redirect | none | other (nothing was booked)'),
    outcome: nullable(outcome).describe("the workflow's outcome; null when this call neither fired nor reused one"),
    requests: z.number().int(),
    trigger: z.object({ id: z.string(), name: z.string() }),
    schedulingLinkId: nullable(z.string()),
    reused: z.boolean().describe('a remembered outcome was used: no new workflow run'),
    refires: z.number().int(),
    unansweredFires: z.array(z.object({ sentAt: nullable(z.string()) })),
  }),
  list_meetings: z.object({
    meetings: z
      .array(
        z
          .looseObject({
            id: nullable(z.string()).describe('null: a booking whose answer was lost (source recovered or unresolved)'),
            date: time(),
            personEmail: z.string(),
            status: z.string(),
            event: z.string().optional(),
            title: nullable(z.string()).optional(),
            goneAt: z
              .string()
              .optional()
              .describe(
                'when the API answered 404 NOT_FOUND to a move of it (deleted, another account, or a gateway mistake)',
              ),
          })
          .describe("a meeting in schedctl's local record"),
      )
      .describe(
        `at most limit (default ${PAGE.default}, at most ${PAGE.max}) meetings, earliest first, from offset on`,
      ),
    ...paging,
  }),
  // `reschedule --json`: a move result (src/documents/schemas.ts moveResult).
  reschedule_meeting: z.object({
    status: z.enum(['moved', 'unchanged']),
    meeting: z.looseObject(meetingShape).describe('the moved meeting'),
    from: nullable(time()).describe('its start as schedctl last recorded it; null: not known here'),
    tried: z
      .array(z.object({ startTime: time(), answer: z.enum(['CONFLICT', 'moved']) }))
      .describe("every time tried, in order: CONFLICT (this meeting's host refused it, nothing changed) or moved"),
  }),
} satisfies Record<string, z.ZodObject>;
