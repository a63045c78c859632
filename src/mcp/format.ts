/**
 * The text content of each tool result, built from the same documents that go out as
 * structuredContent, and carrying the data it refers to (ids, times, the free times listed, the
 * nearest ones after SLOT_TAKEN), bounded where the document is. Every piece of server text is
 * quoted (q: «…»); ids, slugs, emails and ISO times are shown bare when they are one word
 * (shown). Next steps name the tools and their arguments, never the CLI.
 */
import type { EventDetail, EventsList, Meeting, TriggersList } from '../api/schemas.js';
import { formatInZone, systemZone } from '../domain/time.js';
import { isEmailField } from '../domain/triggers.js';
import type { FireDocument } from '../run/trigger/fire.js';
import { isGone, type ListedView } from '../run/meetings/records.js';
import { isUnresolvedView, type UnresolvedView } from '../run/meetings/unresolved.js';
import type { routeDocument } from '../run/route/print.js';
import type { BookingResultDocument } from '../documents/schemas.js';
import { q, shown } from './quote.js';

/** At most this many days of free times are summarised in the text; structuredContent.days holds all. */
export const DAYS_IN_TEXT = 31;

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

export function triggersText(list: TriggersList): string[] {
  if (list.triggers.length === 0) return ['This workspace has no API triggers.'];
  return [
    `${plural(list.triggers.length, 'API trigger')} (* = required; the email field is filled from email; names and descriptions in «» are the API's text):`,
    ...list.triggers.map((t) => {
      const fields = t.fields
        .filter((f) => !isEmailField(f))
        .map(
          (f) =>
            `${shown(f.name)}${f.required ? '*' : ''}${f.options ? ` (${f.options.map((o) => shown(o.value)).join('|')})` : ''}`,
        );
      return `- ${q(t.name)} (id ${shown(t.id)})${t.description ? `: ${q(t.description)}` : ''}; fields: ${fields.join(', ') || 'none'}`;
    }),
  ];
}

export function eventsText(page: EventsList): string[] {
  return [
    page.events.length ? `${plural(page.events.length, 'event')}:` : 'No events on this page.',
    ...page.events.map(
      (e) =>
        `- ${q(e.name)} (slug ${shown(e.slug)}, id ${shown(e.id)}): ${e.duration} min, ${shown(e.conferencingType)}`,
    ),
    page.nextCursor ? `More events: call list_events with cursor ${shown(page.nextCursor)}.` : 'This is the last page.',
  ];
}

export function eventText(d: EventDetail): string[] {
  const questions = [...d.questions].sort((a, b) => a.order - b.order);
  return [
    `${q(d.name)} (slug ${shown(d.slug)}, id ${shown(d.id)}): ${d.duration} min, a start every ${d.timeslotIncrement} min, ${shown(d.conferencingType)}${d.location ? `, location ${q(d.location)}` : ''}`,
    `Hosts: ${d.hosts.map((h) => `${q(h.name)}${h.isPrimary ? ' (primary)' : ''}${h.isQueue ? ' (queue)' : ''}`).join(', ') || 'none'}`,
    ...(questions.length ? ['Questions:'] : []),
    ...questions.map(
      (x, i) =>
        `${i + 1}. ${q(x.title)} (${shown(x.type)}${x.isRequired ? ', required' : ''}${x.requireWorkEmail ? ', work email required' : ''})${x.options.length ? `: ${x.options.map((o) => shown(o.value)).join('|')}` : ''}`,
    ),
  ];
}

export function outcomeText(doc: FireDocument, email: string, zone: string = systemZone()): string[] {
  const o = doc.outcome as { type: string; schedulerUrl?: unknown; schedulingLinkId?: unknown; url?: unknown };
  const run = shown(doc.executionId);
  const head =
    'status' in doc
      ? `Reused the scheduler outcome remembered for ${shown(email)} (workflow run ${run}, fired ${typeof doc.firedAt === 'string' ? formatInZone(doc.firedAt, zone) : shown(doc.firedAt)}): nothing was fired, no new workflow run. Pass force: true only if the person asked for a new run.`
      : `Fired: workflow run ${run}.`;
  switch (o.type) {
    case 'scheduler': {
      const link = shown(o.schedulingLinkId);
      return [
        head,
        `Outcome scheduler: the lead can book. schedulingLinkId ${link}; booking page ${q(o.schedulerUrl)}`,
        `Next: find_slots with event ${link}, then book_meeting with that event, the reservation_id, email ${shown(email)} and execution_id ${run}.`,
      ];
    }
    case 'redirect':
      return [head, `Outcome redirect: the workflow sends the lead to ${q(o.url)}; nothing to book.`];
    case 'none':
      return [head, 'Outcome none: the workflow finished without offering a meeting; nothing to book.'];
    default:
      return [head, `Outcome ${q(o.type)} (not known to this schedctl), as the API sent it: ${q(JSON.stringify(o))}`];
  }
}

/** find_slots' document (tools/book.ts slotsDocument). */
export interface SlotsDoc {
  reservationId: string;
  expiresAt: string;
  event: string;
  from: string;
  to: string;
  zone: string;
  total: number;
  offset: number;
  slots: string[];
  nextOffset: number | null;
  days: Array<{ date: string; count: number; first: string; last: string }>;
  requests: number;
}

const hhmm = (iso: string, zone: string) => formatInZone(iso, zone).slice(11, 16);

export function slotsText(d: SlotsDoc, pastNote: boolean): string[] {
  const z = d.zone;
  const res = shown(d.reservationId);
  const lines = [
    `Reservation ${res} (expires ${formatInZone(d.expiresAt, z)}): ${plural(d.total, 'free time')} for ${shown(d.event)} from ${formatInZone(d.from, z)} to ${formatInZone(d.to, z)} (${plural(d.requests, 'API request')}).`,
  ];
  if (pastNote) lines.push('The range starts in the past: only times from now on can be free.');
  if (d.days.length) {
    const days = d.days.slice(0, DAYS_IN_TEXT);
    lines.push(`By day (${z}), ${plural(d.days.length, 'day')} with free times:`);
    lines.push(...days.map((x) => `- ${x.date}: ${x.count} free, ${hhmm(x.first, z)} to ${hhmm(x.last, z)}`));
    if (d.days.length > days.length) {
      const rest = d.days.slice(days.length);
      lines.push(
        `Left out of this list: ${plural(rest.length, 'more day')} with free times, ${rest[0]!.date} to ${rest.at(-1)!.date} (structuredContent.days lists every day; or call find_slots with a narrower from/to).`,
      );
    }
  }
  if (d.slots.length) {
    lines.push(
      `Free times ${d.offset + 1} to ${d.offset + d.slots.length} of ${d.total} (ISO; pass one as start to book_meeting):`,
    );
    lines.push(...d.slots.map((s) => `- ${shown(s)} (${formatInZone(s, z)})`));
  } else if (d.total > 0) {
    lines.push(`No free times from offset ${d.offset}: there are ${d.total}; pass a smaller offset.`);
  }
  if (d.nextOffset !== null) {
    lines.push(
      `Left out: ${plural(d.total - d.nextOffset, 'more free time')} after these. For the next ones call find_slots again with the same event, from and to, offset ${d.nextOffset} and reservation_id ${res} (the same hold; costs the same requests again), or with a narrower from/to.`,
    );
  }
  if (d.slots.length)
    lines.push(
      `To book one: book_meeting with event ${shown(d.event)}, start = one of these ISO times, reservation_id ${res} and the lead's email.`,
    );
  return lines;
}

/** A meeting, its server text quoted. */
export function meetingText(m: Meeting, zone: string, verb: string): string[] {
  const place =
    m.conferencingType === 'in_person'
      ? `  location ${m.location ? q(m.location) : '(none given)'}`
      : `  link    ${m.meetingLink ? q(m.meetingLink) : '(none)'}${m.location ? `, location ${q(m.location)}` : ''}`;
  const when = formatInZone(m.date, zone);
  return [
    `${verb} meeting ${shown(m.id)}: ${q(m.title)}`,
    `  time    ${when.includes(zone) ? when : `${when} (${zone})`}, ${m.duration} min; status ${shown(m.status)}`,
    place,
    `  lead    ${shown(m.personEmail)}${m.additionalAttendees.length ? ` + ${m.additionalAttendees.map(shown).join(', ')}` : ''}`,
  ];
}

/** book_meeting's document: a booking result (run/book.ts bookDocument). */
export function bookText(doc: BookingResultDocument, zone: string): string[] {
  if (doc.status === 'already_booked') {
    const known = doc.meetingId ? ` (meeting ${shown(doc.meetingId)})` : '';
    const why =
      doc.alreadyBookedCode === 'ON_RECORD'
        ? `this lead already has this meeting on record${doc.meetingId ? '' : " (its id was never received: the booking's answer was lost)"}; nothing was sent`
        : `the API answered ${shown(doc.alreadyBookedCode)} to this retry`;
    return [
      `Already booked${known} at ${formatInZone(String(doc.startTime), zone)} on ${shown(doc.event)}: ${why}. No second meeting was created.`,
      doc.meetingId
        ? `To move it: reschedule_meeting with meeting_id ${shown(doc.meetingId)} and start.`
        : 'To move it: reschedule_meeting with meeting_id (the id from the scheduling app or the calendar invite) and start.',
    ];
  }
  const m = doc.meeting;
  if (!m) return [`Booked at ${formatInZone(String(doc.startTime), zone)} on ${shown(doc.event)}.`];
  return [
    ...meetingText(m, zone, 'Booked'),
    `To move it: reschedule_meeting with meeting_id ${shown(m.id)} and start.`,
  ];
}

/** route_lead's document (run/route/print.ts routeDocument). */
export function routeText(doc: ReturnType<typeof routeDocument>, zone: string): string[] {
  const o = (doc.outcome ?? { type: 'scheduler' }) as { type: string; url?: unknown };
  const cost = `(${plural(doc.requests, 'API request')}${doc.reused ? ', remembered outcome reused: no new workflow run' : ''}${doc.refires ? `, ${doc.refires} re-fire` : ''})`;
  const run = shown(doc.executionId);
  switch (doc.status) {
    case 'booked': {
      const m = doc.meeting;
      if (!m) return [`Booked ${cost}.`];
      return [
        ...meetingText(m, zone, 'Booked'),
        `Trigger ${q(doc.trigger.name)}, workflow run ${run} ${cost}.`,
        `To move it: reschedule_meeting with meeting_id ${shown(m.id)} and start.`,
      ];
    }
    case 'already_booked':
      return doc.alreadyBookedCode === 'ON_RECORD' && doc.meeting
        ? [
            `Already booked: ${shown(doc.email)} has meeting ${shown(doc.meeting.id)} at ${formatInZone(doc.meeting.date, zone)} from trigger ${q(doc.trigger.name)} with the same answers; ${doc.requests ? `no booking or fire was sent, no second meeting (${plural(doc.requests, 'read request')}: the trigger list)` : 'nothing was sent, no second meeting'}.`,
            `To move it: reschedule_meeting with meeting_id ${shown(doc.meeting.id)} and start.`,
          ]
        : doc.alreadyBookedCode === 'ON_RECORD'
          ? [
              `Already booked: an earlier attempt whose answer was lost booked ${shown(doc.email)} at ${formatInZone(doc.startTime ?? '', zone)} (on record: a retry proved it; its meeting id was never received); nothing was sent, no second meeting ${cost}.`,
              'To move it: reschedule_meeting with meeting_id (the id from the scheduling app or the calendar invite) and start.',
            ]
          : [
              `Already booked: an earlier attempt whose answer was lost did book ${shown(doc.email)} at ${formatInZone(doc.startTime ?? '', zone)}; the API answered ${shown(doc.alreadyBookedCode)} to this retry, so no second meeting was created ${cost}.`,
            ];
    case 'redirect':
      return [
        `The workflow (run ${run}) sends ${shown(doc.email)} elsewhere: ${q(o.url)}; nothing was booked ${cost}.`,
      ];
    case 'none':
      return [`The workflow (run ${run}) finished without offering a meeting; nothing was booked ${cost}.`];
    default:
      return [
        `The workflow (run ${run}) answered an outcome this schedctl does not know (${q(o.type)}): ${q(JSON.stringify(o))}; nothing was booked ${cost}.`,
      ];
  }
}

export function meetingsText(
  page: { meetings: ListedView[]; total: number; offset: number; nextOffset: number | null },
  zone: string,
): string[] {
  const { meetings, total, offset, nextOffset } = page;
  if (total === 0)
    return ['No meetings on record for this filter (the record holds meetings booked or moved through schedctl).'];
  if (meetings.length === 0) return [`${plural(total, 'meeting')} on record; none from offset ${offset} on.`];
  const whole = offset === 0 && nextOffset === null;
  return [
    `${plural(total, 'meeting')} on record (${zone})${whole ? '' : `, ${offset + 1} to ${offset + meetings.length} listed`}:`,
    ...meetings.map((m) =>
      isUnresolvedView(m)
        ? `- unresolved: ${unresolvedText(m, zone)}`
        : `- ${formatInZone(m.date, zone)}  ${shown(m.personEmail)}  ${m.title ? q(m.title) : shown(m.event)}  ${isGone(m) ? `the API answered 404 for it on ${formatInZone(m.goneAt, zone)} (deleted, of another account, or a gateway's mistake; the record keeps it)` : shown(m.status)}  ${m.id ? `meeting_id ${shown(m.id)}` : "(booked, but its id was never received: the booking's answer was lost; to move it, reschedule_meeting with the meeting_id from the scheduling app)"}`,
    ),
    ...(nextOffset !== null
      ? [
          `Left out: ${total - nextOffset} later meetings: call list_meetings again with offset ${nextOffset} (and the same filter) for the next ones, or narrow with email, event, from/to.`,
        ]
      : []),
  ];
}

/**
 * A booking sent whose answer was lost (issue 52 finding 7), in the tools' words: what it was,
 * that it almost certainly booked, and the call that confirms it (the same booking again).
 */
export function unresolvedText(m: UnresolvedView, zone: string): string {
  const how =
    m.lostBy === 'error_answer'
      ? 'the server answered an error, so it may have booked'
      : 'its answer was lost, and it almost certainly booked';
  const again = m.triggerId
    ? `route_lead again for ${shown(m.personEmail)} with the same trigger and answers`
    : `book_meeting again with event ${shown(m.event)}, start ${shown(m.date)}, reservation_id ${shown(m.reservationId)}, email ${shown(m.personEmail)}${m.workflowExecutionId ? `, execution_id ${shown(m.workflowExecutionId)}` : ''}`;
  return `a booking of ${shown(m.personEmail)} on ${shown(m.event)} at ${formatInZone(m.date, zone)} was sent ${m.sentAt ? formatInZone(m.sentAt, zone) : 'earlier'}: ${how} (its meeting id was never received); to confirm, send the same booking again (it cannot book twice): ${again}`;
}

export function rescheduleText(m: Meeting, was: string | undefined, zone: string): string[] {
  return [
    ...meetingText(m, zone, 'Rescheduled'),
    was ? `Was ${formatInZone(was, zone)}.` : 'Its earlier time is not on record here.',
  ];
}
