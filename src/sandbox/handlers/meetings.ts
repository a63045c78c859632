/** POST /v1/scheduling/meetings (book) and PATCH /v1/scheduling/meetings/{id} (reschedule). */
import { bookRequestSchema, rescheduleRequestSchema } from '../../api/request-schemas.js';
import type { Meeting } from '../../api/schemas.js';
import { checkStart } from '../availability.js';
import { isPersonalEmail, sameEmail } from '../email.js';
import { ApiFailure, invalid, notFound, validate, type Reply } from '../http.js';
import type { Store } from '../store.js';
import type { EventRecord, MeetingRecord } from '../types.js';
import type { HandlerContext } from './context.js';
import { assertUsable, lookupReservation, resolveTarget } from './slots.js';
import { must } from '../must.js';

const CONFERENCING = {
  calendar_default: 'google_meet',
  zoom: 'zoom',
  zoom_personal: 'zoom_personal',
  in_person: 'in_person',
} as const;

function meetingLink(store: Store, e: EventRecord): string | null {
  if (e.conferencingType === 'in_person') return null;
  if (e.conferencingType === 'calendar_default')
    return `https://meet.google.com/sbx-${store.randomDigits(4)}-${store.randomDigits(3)}`;
  return `https://zoom.us/j/${store.randomDigits(10)}`;
}

/** Picks the free host with the fewest meetings (a simple stand-in for routing fairness). */
function pickHost(store: Store, hostIds: string[]): string {
  const load = (id: string) => store.state.meetings.filter((m) => m.hostIds.includes(id)).length;
  return must([...hostIds].sort((a, b) => load(a) - load(b))[0], 'a host of the event');
}

// The checks run in this order so that a retry after a lost response (same reservation,
// same execution) meets CONFLICT or RESERVATION_USED before anything that could book.
// Everything from the first check to the commit is synchronous: two concurrent requests
// for one slot cannot both pass the availability check.
export function bookMeeting(ctx: HandlerContext): Reply {
  const { store } = ctx;
  const body = validate(bookRequestSchema, ctx.json(), 'booking request');
  const target = resolveTarget(store, body.event);
  const event = target.event;
  const workEmail = event.questions.some((q) => q.type === 'email' && q.requireWorkEmail);
  if (workEmail && isPersonalEmail(body.personEmail)) {
    throw new ApiFailure(
      400,
      'WORK_EMAIL_REQUIRED',
      `${event.name} requires a work email; ${body.personEmail} is a personal address.`,
    );
  }
  const reservation = lookupReservation(store, body.reservationId, target);
  const execution = body.workflowExecutionId
    ? store.state.executions.find((e) => e.id === body.workflowExecutionId)
    : undefined;
  if (body.workflowExecutionId) {
    if (!execution) throw notFound(`Workflow execution ${body.workflowExecutionId} does not exist.`);
    if (!sameEmail(execution.email, body.personEmail)) {
      throw invalid('personEmail must be the email the trigger was fired with.', [
        `personEmail: must equal the fired email ${execution.email}`,
      ]);
    }
    if (execution.meetingId)
      throw new ApiFailure(
        409,
        'CONFLICT',
        `Workflow execution ${execution.id} already booked meeting ${execution.meetingId}.`,
      );
  }
  assertUsable(store, reservation);
  if (execution && store.sessionEnded(execution)) {
    throw new ApiFailure(
      409,
      'CONFLICT',
      `The scheduling session of execution ${execution.id} has ended; fire the trigger again.`,
    );
  }
  const start = Date.parse(body.startTime);
  const rules = { duration: event.duration, increment: event.timeslotIncrement, now: store.nowMs() };
  const check = checkStart(store.calendars(reservation.hostIds), start, rules);
  if (check.kind === 'none')
    throw new ApiFailure(409, 'NO_HOST_AVAILABLE', `No host is available at ${body.startTime}; pick another slot.`);
  if (check.kind === 'taken') {
    throw new ApiFailure(
      409,
      'SLOT_TAKEN',
      `${body.startTime} was just taken; fetch slots again and retry with the same reservationId.`,
    );
  }
  const now = store.now().toISOString();
  const meeting: Meeting = {
    id: store.nextId(),
    eventId: event.id,
    title: `${event.name} with ${body.guestFirstName ?? body.personEmail}`,
    status: 'scheduled',
    date: new Date(start).toISOString(),
    duration: event.duration,
    meetingLink: meetingLink(store, event),
    conferencingType: CONFERENCING[event.conferencingType],
    location: event.location === '' ? null : event.location,
    personEmail: body.personEmail,
    additionalAttendees: body.guestEmails ?? [],
    cancellationReason: null,
    createdAt: now,
    updatedAt: now,
  };
  const record: MeetingRecord = {
    meeting,
    hostIds: [pickHost(store, check.hostIds)],
    eventKey: body.event,
    targetKind: target.kind,
    targetId: target.id,
    reservationId: reservation.id,
    workflowExecutionId: execution?.id ?? null,
  };
  store.state.meetings.push(record);
  reservation.usedAt = now;
  if (execution) execution.meetingId = meeting.id;
  store.commit();
  return { status: 201, body: meeting };
}

export function rescheduleMeeting(ctx: HandlerContext): Reply {
  const { store } = ctx;
  const body = validate(rescheduleRequestSchema, ctx.json(), 'reschedule request');
  const record = store.state.meetings.find((m) => m.meeting.id === ctx.params.meetingId);
  if (!record) throw notFound(`Meeting ${ctx.params.meetingId} does not exist.`);
  const start = Date.parse(body.startTime);
  if (start === Date.parse(record.meeting.date)) return { status: 200, body: record.meeting };
  const event = must(
    store.workspace.events.find((e) => e.id === record.meeting.eventId),
    `event ${record.meeting.eventId}`,
  );
  const rules = { duration: event.duration, increment: event.timeslotIncrement, now: store.nowMs() };
  // Hosts are kept: only the meeting's own hosts count, and the meeting never blocks itself.
  const check = checkStart(store.calendars(record.hostIds, record.meeting.id), start, rules);
  if (check.kind !== 'free' || check.hostIds.length !== record.hostIds.length) {
    throw new ApiFailure(
      409,
      'CONFLICT',
      `${body.startTime} is not available for this meeting's hosts; pick another time.`,
    );
  }
  record.meeting = {
    ...record.meeting,
    date: new Date(start).toISOString(),
    status: 'rescheduled',
    updatedAt: store.now().toISOString(),
  };
  store.commit();
  return { status: 200, body: record.meeting };
}
