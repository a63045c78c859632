/**
 * A lead's record seen whole (`meetings history`): every fire, remembered outcome, booking
 * attempt, meeting, move, refusal and 404 the ledger keeps for the lead, as one list of entries
 * in time order, each with what it proved and who wrote it where the record keeps that (a
 * meeting's bookedBy, a move's `by`: user@host). Pure: the stores' rows in, entries out.
 */
import type { FireEntry, JournalEntry, MeetingRecord, RememberedOutcome } from '../../state/index.js';
import { wasSent } from '../../state/journal.js';
import { resendHint } from '../lead-guard.js';
import type { MeetingsHistoryDocument } from '../../documents/schemas.js';

/** An entry as `meetings history --json` prints it (documents/schemas.ts meetingsHistory). */
export type TimelineEntry = MeetingsHistoryDocument['entries'][number];
export type TimelineKind = TimelineEntry['kind'];

export interface LeadRows {
  fires: FireEntry[];
  outcomes: RememberedOutcome[];
  attempts: JournalEntry[];
  meetings: MeetingRecord[];
}

/** What an attempt's answer proved, as the record holds it now. */
export function proved(a: JournalEntry): 'not_sent' | 'unknown' | 'booked' | 'already_booked' {
  if (!wasSent(a)) return 'not_sent';
  return a.outcome;
}

const defined = (o: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== null));

function fireEntries(f: FireEntry): TimelineEntry[] {
  const answer = f.state === 'answered' ? 'received' : f.state === 'sent' ? 'none' : 'not_sent';
  const out: TimelineEntry[] = [
    {
      at: f.sentAt ?? f.preparedAt,
      kind: 'fire',
      ...defined({ fireId: f.id, triggerId: f.triggerId, state: f.state, answer, answersKey: f.answersKey }),
    },
  ];
  if (f.answeredAt)
    out.push({
      at: f.answeredAt,
      kind: 'fire_answer',
      ...defined({ fireId: f.id, triggerId: f.triggerId, executionId: f.executionId, outcomeType: f.outcomeType }),
    });
  return out;
}

function outcomeEntry(o: RememberedOutcome): TimelineEntry {
  return {
    at: o.firedAt,
    kind: 'outcome',
    ...defined({
      triggerId: o.triggerId,
      executionId: o.executionId,
      outcomeType: o.outcome.type,
      schedulingLinkId: 'schedulingLinkId' in o.outcome ? o.outcome.schedulingLinkId : undefined,
      answersKey: o.answersKey,
    }),
  };
}

function attemptEntries(a: JournalEntry): TimelineEntry[] {
  const p = proved(a);
  // The time the booking asked for: a move of its meeting carries the attempt's startTime along
  // (the rule reads it as the meeting's time); the request kept with it says what was sent.
  const sent = a.request?.startTime;
  const out: TimelineEntry[] = [
    {
      at: a.sentAt ?? a.attemptedAt,
      kind: 'booking',
      ...defined({
        attemptId: a.id,
        event: a.event,
        eventId: a.eventId,
        startTime: typeof sent === 'string' ? sent : a.startTime,
        reservationId: a.reservationId,
        executionId: a.workflowExecutionId,
        triggerId: a.triggerId,
        sent: p !== 'not_sent',
        preparedAt: a.attemptedAt,
        outcome: p,
        lostBy: p === 'unknown' ? (a.lostBy ?? 'no_answer') : undefined,
        meetingId: a.meetingId,
        confirm: p === 'unknown' && a.acknowledgedAt === undefined ? resendHint(a) : undefined,
      }),
    },
  ];
  // A lost answer settled later by a retry's answer (already_booked), at updatedAt: when it was learnt.
  if (a.outcome === 'already_booked' && a.updatedAt)
    out.push({
      at: a.updatedAt,
      kind: 'booking_settled',
      ...defined({
        attemptId: a.id,
        event: a.event,
        startTime: a.startTime,
        outcome: a.outcome,
        meetingId: a.meetingId,
      }),
    });
  if (a.acknowledgedAt) out.push({ at: a.acknowledgedAt, kind: 'booking_acknowledged', attemptId: a.id });
  return out;
}

function meetingEntries(m: MeetingRecord): TimelineEntry[] {
  const out: TimelineEntry[] = [
    {
      at: m.recordedAt,
      kind: 'meeting',
      ...defined({
        meetingId: m.id,
        source: m.source,
        date: m.date,
        duration: m.duration,
        status: m.status,
        title: m.title,
        event: m.event,
        eventId: m.eventId,
        triggerId: m.triggerId,
        triggerName: m.triggerName,
        by: m.bookedBy,
      }),
    },
  ];
  for (const move of m.history)
    out.push({ at: move.at, kind: 'move', ...defined({ meetingId: m.id, from: move.from, to: move.to, by: move.by }) });
  for (const r of m.refused ?? [])
    out.push({ at: r.at, kind: 'move_refused', meetingId: m.id, startTime: r.startTime });
  if (m.goneAt) out.push({ at: m.goneAt, kind: 'not_found', meetingId: m.id });
  // A move sent whose answer is not on record: the next move sends it again as it was.
  if (m.pendingMove)
    out.push({ at: m.pendingMove.sentAt, kind: 'move_unanswered', meetingId: m.id, to: m.pendingMove.to });
  return out;
}

/** Earlier first; at one instant, in the order things happen (a fire before its answer, a booking before its meeting). */
const ORDER: TimelineKind[] = [
  'fire',
  'fire_answer',
  'outcome',
  'booking',
  'booking_settled',
  'meeting',
  'move_refused',
  'move',
  'move_unanswered',
  'not_found',
  'booking_acknowledged',
];

export function timeline(rows: LeadRows): TimelineEntry[] {
  const entries = [
    ...rows.fires.flatMap(fireEntries),
    ...rows.outcomes.map(outcomeEntry),
    ...rows.attempts.flatMap(attemptEntries),
    ...rows.meetings.flatMap(meetingEntries),
  ];
  const ms = (e: TimelineEntry) => {
    const t = Date.parse(e.at);
    return Number.isNaN(t) ? Number.POSITIVE_INFINITY : t;
  };
  // A stable sort: entries of one kind at one instant keep the record's order.
  return entries.sort((a, b) => ms(a) - ms(b) || ORDER.indexOf(a.kind) - ORDER.indexOf(b.kind));
}

/** The triggers the lead's record names: where its remembered outcomes are (Outcomes.ofLead). */
export function triggersOf(rows: Omit<LeadRows, 'outcomes'>): string[] {
  const ids = [
    ...rows.fires.map((f) => f.triggerId),
    ...rows.attempts.map((a) => a.triggerId),
    ...rows.meetings.map((m) => m.triggerId),
  ];
  return [...new Set(ids.filter((id): id is string => typeof id === 'string' && id !== ''))];
}
