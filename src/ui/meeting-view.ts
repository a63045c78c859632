import type { Meeting } from '../api/schemas.js';
import { formatInZone, formatUtc } from '../domain/time.js';

/** The human view of a meeting, shared by book, reschedule and route. */
export function describeMeeting(m: Meeting, zone: string, verb: string): string {
  return [
    `${verb} meeting ${m.id}`,
    `  title   ${m.title}`,
    `  time    ${formatInZone(m.date, zone)} (${formatUtc(m.date)}), ${m.duration} min`,
    `  status  ${m.status}`,
    `  link    ${m.meetingLink ?? m.location ?? '(none)'}`,
    `  lead    ${m.personEmail}${m.additionalAttendees.length ? ` + ${m.additionalAttendees.join(', ')}` : ''}`,
  ].join('\n');
}
