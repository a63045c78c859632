/**
 * The short text content of each tool result, built from the same documents that go out as
 * structuredContent. Lines only: the caller sanitizes the whole text once (call.ts safeText),
 * so server strings (trigger names, labels, URLs) may appear here raw. Next steps name the
 * tools, not the CLI.
 */
import type { EventDetail, EventsList, Meeting, SlotsResult, TriggersList } from '../api/schemas.js';
import { formatInZone } from '../domain/time.js';
import { isEmailField } from '../domain/triggers.js';
import type { FireDocument } from '../run/trigger/fire.js';
import type { AnyMeetingView } from '../run/meetings/records.js';
import type { routeDocument } from '../run/route/print.js';
import { describeMeeting } from '../ui/meeting-view.js';

/** At most this many free times are listed in the text; structuredContent holds all of them. */
export const SLOTS_IN_TEXT = 40;

export function triggersText(list: TriggersList): string[] {
  if (list.triggers.length === 0) return ['This workspace has no API triggers.'];
  return [
    `${list.triggers.length} API trigger${list.triggers.length === 1 ? '' : 's'} (* = required; the email field is filled from email):`,
    ...list.triggers.map((t) => {
      const fields = t.fields
        .filter((f) => !isEmailField(f))
        .map(
          (f) => `${f.name}${f.required ? '*' : ''}${f.options ? ` (${f.options.map((o) => o.value).join('|')})` : ''}`,
        );
      return `- "${t.name}" (id ${t.id})${t.description ? `: ${t.description}` : ''}; fields: ${fields.join(', ') || 'none'}`;
    }),
  ];
}

export function eventsText(page: EventsList): string[] {
  return [
    page.events.length
      ? `${page.events.length} event${page.events.length === 1 ? '' : 's'}:`
      : 'No events on this page.',
    ...page.events.map((e) => `- ${e.name} (slug ${e.slug}, id ${e.id}): ${e.duration} min, ${e.conferencingType}`),
    page.nextCursor ? `More events: call list_events with cursor "${page.nextCursor}".` : 'This is the last page.',
  ];
}

export function eventText(d: EventDetail): string[] {
  const questions = [...d.questions].sort((a, b) => a.order - b.order);
  return [
    `${d.name} (slug ${d.slug}, id ${d.id}): ${d.duration} min, a start every ${d.timeslotIncrement} min, ${d.conferencingType}${d.location ? `, ${d.location}` : ''}`,
    `Hosts: ${d.hosts.map((h) => `${h.name}${h.isPrimary ? ' (primary)' : ''}${h.isQueue ? ' (queue)' : ''}`).join(', ') || 'none'}`,
    ...(questions.length ? ['Questions:'] : []),
    ...questions.map(
      (q, i) =>
        `${i + 1}. ${q.title} (${q.type}${q.isRequired ? ', required' : ''}${q.requireWorkEmail ? ', work email required' : ''})${q.options.length ? `: ${q.options.map((o) => o.value).join('|')}` : ''}`,
    ),
  ];
}

export function outcomeText(doc: FireDocument, email: string): string[] {
  const o = doc.outcome as { type: string; schedulerUrl?: unknown; schedulingLinkId?: unknown; url?: unknown };
  const head =
    'status' in doc
      ? `Reused the scheduler outcome remembered for ${email} (workflow run ${doc.executionId}, fired ${doc.firedAt}): nothing was fired, no new workflow run. Pass force: true only if a new run is really wanted.`
      : `Fired: workflow run ${doc.executionId}.`;
  switch (o.type) {
    case 'scheduler':
      return [
        head,
        `Outcome scheduler: the lead can book. schedulingLinkId ${String(o.schedulingLinkId)}; booking page ${String(o.schedulerUrl)}`,
        `Next: find_slots with event "${String(o.schedulingLinkId)}", then book_meeting with that event, the reservation, email ${email} and execution_id ${doc.executionId}.`,
      ];
    case 'redirect':
      return [head, `Outcome redirect: the workflow sends the lead to ${String(o.url)}; nothing to book.`];
    case 'none':
      return [head, 'Outcome none: the workflow finished without offering a meeting; nothing to book.'];
    default:
      return [head, `Outcome "${o.type}" (not known to this schedctl): see structuredContent.`];
  }
}

export function slotsText(r: SlotsResult, q: { event: string; from: Date; to: Date; zone: string }): string[] {
  const shown = r.slots.slice(0, SLOTS_IN_TEXT);
  return [
    `Reservation ${r.reservationId} (expires ${formatInZone(r.expiresAt, q.zone)}): ${r.slots.length} free time${r.slots.length === 1 ? '' : 's'} for ${q.event} from ${formatInZone(q.from, q.zone)} to ${formatInZone(q.to, q.zone)}.`,
    ...shown.map((s) => `- ${s} (${formatInZone(s, q.zone)})`),
    ...(r.slots.length > shown.length
      ? [`…and ${r.slots.length - shown.length} more (structuredContent.slots lists them all).`]
      : []),
    ...(r.slots.length
      ? [
          `To book one: book_meeting with event "${q.event}", start = one of these ISO times, reservation_id ${r.reservationId}.`,
        ]
      : []),
  ];
}

/** book_meeting's document: a Meeting, or already_booked. */
export function bookText(doc: Record<string, unknown>, zone: string): string[] {
  if (doc.status === 'already_booked') {
    const known = doc.meetingId ? ` (meeting ${String(doc.meetingId)})` : '';
    const why =
      doc.code === 'ON_RECORD'
        ? 'this lead already has this meeting on record; nothing was sent'
        : `the API answered ${String(doc.code)} to this retry`;
    return [
      `Already booked${known} at ${formatInZone(String(doc.startTime), zone)} on ${String(doc.event)}: ${why}. No second meeting was created.`,
    ];
  }
  const m = doc as unknown as Meeting;
  return [describeMeeting(m, zone, 'Booked'), `To move it: reschedule_meeting with meeting_id ${m.id}.`];
}

/** route_lead's document (run/route/print.ts routeDocument). */
export function routeText(doc: ReturnType<typeof routeDocument>, zone: string): string[] {
  const o = doc.outcome as { type: string; url?: unknown };
  const cost = `(${doc.requests} API request${doc.requests === 1 ? '' : 's'}${doc.reused ? ', remembered outcome reused: no new workflow run' : ''}${doc.refires ? `, ${doc.refires} re-fire` : ''})`;
  switch (doc.status) {
    case 'booked': {
      const m = doc.meeting;
      if (!m) return [`Booked ${cost}.`];
      return [
        describeMeeting(m, zone, 'Booked'),
        `Workflow run ${doc.executionId} ${cost}.`,
        `To move it: reschedule_meeting with meeting_id ${m.id}.`,
      ];
    }
    case 'already_booked':
      return doc.alreadyBookedCode === 'ON_RECORD' && doc.meeting
        ? [
            `Already booked: ${doc.email} has meeting ${doc.meeting.id} at ${formatInZone(doc.meeting.date, zone)} from "${doc.trigger.name}" with the same answers; nothing was sent, no second meeting.`,
          ]
        : [
            `Already booked: an earlier attempt whose answer was lost did book ${doc.email} at ${formatInZone(doc.slot ?? '', zone)}; the API answered ${doc.alreadyBookedCode} to this retry, so no second meeting was created ${cost}.`,
          ];
    case 'redirect':
      return [`The workflow sends ${doc.email} elsewhere: ${String(o.url)}; nothing was booked ${cost}.`];
    case 'none':
      return [`The workflow finished without offering a meeting; nothing was booked ${cost}.`];
    default:
      return [
        `The workflow answered an outcome this schedctl does not know ("${o.type}"); nothing was booked ${cost}.`,
      ];
  }
}

export function meetingsText(meetings: AnyMeetingView[], zone: string): string[] {
  if (meetings.length === 0)
    return ['No meetings on record for this filter (the record holds meetings booked or moved through schedctl).'];
  return [
    `${meetings.length} meeting${meetings.length === 1 ? '' : 's'} on record:`,
    ...meetings.map(
      (m) =>
        `- ${formatInZone(m.date, zone)}  ${m.personEmail}  ${m.title ?? m.event}  ${m.status}  ${m.id ?? '(id unknown: booked, answer lost)'}`,
    ),
  ];
}

export function rescheduleText(m: Meeting, was: string | undefined, zone: string): string[] {
  return [
    describeMeeting(m, zone, 'Rescheduled'),
    was ? `Was ${formatInZone(was, zone)}.` : 'Its earlier time is not on record here.',
  ];
}
