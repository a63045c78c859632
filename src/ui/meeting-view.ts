import type { Meeting } from '../api/schemas.js';
import { formatInZone } from '../domain/time.js';
import { sanitizeText } from './sanitize.js';

/**
 * The human view of a meeting, shared by book, reschedule and route: one time per line, in the
 * display zone, plus the lead's own time when their zone is known and shows another wall time.
 * An in-person meeting has a place, not a link: it is labelled "location". Text from the server
 * is shown escaped (sanitizeText), never as terminal control.
 */
export function describeMeeting(m: Meeting, zone: string, verb: string, leadZone?: string): string {
  const s = sanitizeText;
  const row = meetingLine;
  const shown = formatInZone(m.date, zone);
  const lead = leadZone && leadZone !== zone ? { zone: leadZone, shown: formatInZone(m.date, leadZone) } : undefined;
  const rows = [
    `${verb} meeting ${s(m.id)}`,
    row('title', s(m.title)),
    row('time', `${withZoneName(shown, zone)}, ${m.duration} min`),
    ...(lead && lead.shown !== shown ? [row('lead time', withZoneName(lead.shown, lead.zone))] : []),
    row('status', s(m.status)),
  ];
  if (m.conferencingType === 'in_person') {
    rows.push(row('location', m.location ? s(m.location) : '(none given)'));
  } else {
    rows.push(row('link', m.meetingLink ? s(m.meetingLink) : '(none)'));
    if (m.location) rows.push(row('location', s(m.location)));
  }
  rows.push(
    row(
      'lead',
      `${s(m.personEmail)}${m.additionalAttendees.length ? ` + ${m.additionalAttendees.map(s).join(', ')}` : ''}`,
    ),
  );
  return rows.join('\n');
}

const LABEL = 'lead time  '.length;

/** One labelled line of the view, aligned with the others (for a caller's extra line, e.g. "was"). */
export function meetingLine(label: string, value: string): string {
  return `  ${label.padEnd(LABEL)}${value}`;
}

/** `2026-12-01 14:00 GMT+1 (Europe/Berlin)`: the offset says the hour, the name says the place. */
function withZoneName(formatted: string, zone: string): string {
  return formatted.includes(zone) ? formatted : `${formatted} (${zone})`;
}
