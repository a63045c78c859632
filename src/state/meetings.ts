/**
 * Meetings booked, moved or found through schedctl (table `meetings`, one row per workspace and
 * meeting id): for `meetings ls/show`, for a reschedule that needs the event it was booked with,
 * and so that a lead is not booked twice by accident. The columns are what the rules ask by
 * (the lead, when it starts and when it is over, its status, trigger and event); the record
 * itself is the row's `body`.
 */
import { hostname } from 'node:os';
import { currentUser } from './lead-lock.js';
import type { Meeting } from '../api/schemas.js';
import { leadId } from './identity.js';
import { msOf } from './journal.js';
import type { MeetingMove, MeetingRecord } from './schemas.js';
import { withRefusal, type MoveRefusal } from '../domain/move-search.js';
import type { PendingMove } from '../domain/lead-rule.js';
import { get, type Sql, type SqlSource, type SqlValue } from './sql/types.js';
import type { Write } from './together.js';

export type { MeetingRecord };
export type MeetingSource = MeetingRecord['source'];
export interface MeetingToRecord {
  scope: string;
  meeting: Meeting;
  source: MeetingSource;
  /** The event or scheduling link id it was booked with. */
  event: string;
  triggerId?: string | undefined;
  /** The routing trigger's name, when a route booked it (kept so that `meetings ls TEXT` finds it). */
  triggerName?: string | undefined;
  answersKey?: string | undefined;
}
export interface UpcomingQuery {
  email: string;
  triggerId?: string;
  event?: string;
}
/** What `meetings ls` and `reschedule --email` narrow the record by (each optional). */
export interface MeetingQuery {
  email?: string | undefined;
  /** The event or link as booked (`event`), or the meeting's eventId. */
  event?: string | undefined;
  /** More eventIds that `event` stands for (a slug resolved): their meetings match too. */
  eventIds?: readonly string[] | undefined;
  from?: Date | undefined;
  to?: Date | undefined;
  /** Only meetings not over at this instant. */
  upcomingFrom?: Date | undefined;
  /**
   * At most this many, the first in time order. The database stops there (walking the workspace's
   * start-time index) unless the lead or "not over" narrows the query, whose few rows are cut after.
   */
  limit?: number | undefined;
}

/**
 * Whether a meeting is not over at `now` (epoch ms): "upcoming" everywhere in schedctl, so one
 * in progress counts (a lead in a meeting has a meeting). Without a duration (a booking
 * recovered from a retry's answer), until it starts.
 */
export function notOver(m: { date: string; duration: number | null }, now: number): boolean {
  const start = Date.parse(m.date);
  return m.duration === null ? start >= now : start + m.duration * 60_000 > now;
}
/** The first instant at which notOver is false (the `over_ms` column); null when the date does not read. */
export function overAt(m: { date: string; duration: number | null }): number | null {
  const start = msOf(m.date);
  if (start === null) return null;
  return m.duration === null ? start + 1 : start + m.duration * 60_000;
}

interface Row {
  workspace: string;
  body: string;
}
const recordOf = (row: Row): MeetingRecord => ({ ...(JSON.parse(row.body) as MeetingRecord), scope: row.workspace });

async function putMeeting(sql: Sql, m: MeetingRecord, keep = false, rowId = m.id): Promise<number> {
  return sql.run(...meetingWrite(m, keep, rowId));
}

/**
 * The row of a meeting id answered for another lead than the one on record (issue 52 finding 8:
 * a server that reissued an id, a sandbox restarted without --state): kept apart, keyed also by
 * its lead, so the first lead's record is never overwritten. Its body keeps the real id; the
 * lead's queries (`meetings ls --email`, the booking rule) find it by the lead column.
 */
export const apartRowId = (id: string, email: string): string => `${id}#${leadId(email)}`;

const sameLead = (a: { personEmail: string }, b: { personEmail: string }): boolean =>
  leadId(a.personEmail) === leadId(b.personEmail);

function meetingWrite(m: MeetingRecord, keep = false, rowId = m.id): [string, SqlValue[]] {
  return [
    `INSERT INTO schedctl_meetings (workspace, id, lead, start_ms, over_ms, status, trigger_id, event, event_id, body)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (workspace, id) ${
       keep
         ? 'DO NOTHING'
         : `DO UPDATE SET lead = excluded.lead, start_ms = excluded.start_ms,
       over_ms = excluded.over_ms, status = excluded.status, trigger_id = excluded.trigger_id,
       event = excluded.event, event_id = excluded.event_id, body = excluded.body`
     }`,
    [
      m.scope,
      rowId,
      leadId(m.personEmail),
      msOf(m.date),
      overAt(m),
      // A meeting the server no longer has is `gone` in the column (readable with sqlite3); its
      // body keeps the API's last status.
      m.goneAt !== undefined ? 'gone' : m.status,
      m.triggerId ?? null,
      m.event,
      m.eventId,
      JSON.stringify(m),
    ],
  ];
}
export { putMeeting };

/** The record of a meeting the server answered with, over the one held (its first source, recordedAt, history and origin kept). */
function recordedOver(input: MeetingToRecord, held: MeetingRecord | undefined, recordedAt: string): MeetingRecord {
  // The server's Meeting proves it exists: a gone mark (an earlier 404) is dropped.
  return {
    ...withoutGone(held),
    ...input.meeting,
    scope: input.scope,
    source: held?.source ?? input.source,
    recordedAt: held?.recordedAt ?? recordedAt,
    event: input.event,
    ...optional('triggerId', input.triggerId ?? held?.triggerId),
    ...optional('triggerName', input.triggerName ?? held?.triggerName),
    ...optional('answersKey', input.answersKey ?? held?.answersKey),
    bookedBy: held?.bookedBy ?? whoAmI(),
    history: held?.history ?? [],
  };
}

export class Meetings {
  constructor(
    private readonly db: SqlSource,
    protected readonly now: () => Date,
    private readonly where: () => string,
    /** Says a clash of meeting ids (one answered for another lead), on stderr. */
    private readonly warn?: (line: string) => void,
  ) {}

  /** The clashes said in this process, in words (for a document that lists warnings). */
  readonly clashes: string[] = [];

  /**
   * Which row a Meeting answered for `meeting.personEmail` goes to: its id's, unless that row is
   * another lead's (then the row kept apart for this lead, and the clash said once per write).
   */
  private async rowFor(
    tx: Sql,
    scope: string,
    meeting: { id: string; personEmail: string },
  ): Promise<{ rowId: string; held: MeetingRecord | undefined }> {
    const first = await getMeeting(tx, scope, meeting.id);
    if (!first || sameLead(first, meeting)) return { rowId: meeting.id, held: first };
    const rowId = apartRowId(meeting.id, meeting.personEmail);
    const line = `the API answered meeting id ${meeting.id} for ${meeting.personEmail}, but that id is on record for ${first.personEmail}: both are kept (the record of ${first.personEmail} unchanged, ${meeting.personEmail}'s kept apart); the server reissued an id, so check both meetings in the scheduling app`;
    this.clashes.push(line);
    this.warn?.(`warning: ${line}`);
    return { rowId, held: await getMeeting(tx, scope, rowId) };
  }

  get path(): string {
    return `${this.where()} (meetings)`;
  }

  /** The ledger this store keeps its rows in: stores on the same one may share a step (together.ts). */
  get ledger(): SqlSource {
    return this.db;
  }

  /**
   * Records (or refreshes) a meeting. For one already recorded, the server's fields are
   * refreshed while its first source, recordedAt and history stay: they tell how it got here.
   */
  async record(input: MeetingToRecord): Promise<MeetingRecord> {
    // A meeting new to the record (a booking's, the usual case) is written in one statement
    // (one round trip on a team state); one already there is read and refreshed.
    const { statement, fresh } = this.recordWrite(input);
    return (await (await this.db()).run(...statement)) > 0 ? fresh : this.refresh(input);
  }

  /**
   * `record` as a write for a shared step (together.ts): the meeting inserted when new to the
   * record; one already there is refreshed after the step (`otherwise`).
   */
  recordWrite(input: MeetingToRecord): Write & { fresh: MeetingRecord } {
    const fresh = recordedOver(input, undefined, this.now().toISOString());
    return { statement: meetingWrite(fresh, true), fresh, otherwise: () => this.refresh(input) };
  }

  /**
   * A meeting already on record: the server's fields refreshed, how it got here kept. An id on
   * record for another lead is never overwritten: this lead's is kept apart (rowFor).
   */
  private async refresh(input: MeetingToRecord): Promise<MeetingRecord> {
    const recordedAt = this.now().toISOString();
    return (await this.db()).transaction(async (tx) => {
      const { rowId, held } = await this.rowFor(tx, input.scope, input.meeting);
      const record = recordedOver(input, held, recordedAt);
      await tx.step([meetingWrite(record, false, rowId)]);
      return record;
    });
  }

  /**
   * A meeting moved to `meeting.date`. A meeting not recorded here yet is recorded as
   * `rescheduled` (its old time unknown: the move has no `from`; its event is the meeting's eventId).
   */
  async recordMove(scope: string, meetingId: string, meeting: Meeting, at: Date | string): Promise<MeetingRecord> {
    const when = typeof at === 'string' ? at : at.toISOString();
    return (await this.db()).transaction(async (tx) => {
      // The moved Meeting names its lead: an id on record for another lead is not theirs to move.
      const { rowId, held } = await this.rowFor(tx, scope, { id: meetingId, personEmail: meeting.personEmail });
      const moved = !held || Date.parse(held.date) !== Date.parse(meeting.date);
      const move: MeetingMove = { ...optional('from', held?.date), to: meeting.date, at: when, by: whoAmI() };
      // The server answered it with a Meeting: it is not gone (whatever an earlier 404 said).
      const record: MeetingRecord = {
        ...withoutPending(withoutGone(held)),
        ...meeting,
        id: meetingId,
        scope,
        source: held?.source ?? 'rescheduled',
        recordedAt: held?.recordedAt ?? when,
        event: held?.event ?? meeting.eventId,
        bookedBy: held?.bookedBy ?? whoAmI(),
        history: [...(held?.history ?? []), ...(moved ? [move] : [])],
      };
      await tx.step([meetingWrite(record, false, rowId)]);
      return record;
    });
  }

  /**
   * The API answered NOT_FOUND for this meeting: notes it with its date (`goneAt`). Not upcoming
   * as a meeting any more, but the lead is not freed: the lead's record keeps it as a 404
   * (state/ledger.ts notFound; domain/lead-rule.ts). Undefined when it is not on record here.
   */
  async markGone(scope: string, meetingId: string, at: Date): Promise<MeetingRecord | undefined> {
    // The 404 answers the move that was sent, if any: it is no longer pending.
    return this.change(scope, meetingId, (held) => ({
      ...withoutPending(held),
      goneAt: held.goneAt ?? at.toISOString(),
    }));
  }

  /**
   * This meeting's host refused a move to `refusal.startTime` (CONFLICT): kept in the record's
   * body (no column: only the move that reads the record asks), lapsed ones dropped. A meeting
   * not on record stays unrecorded (a refusal is no Meeting): undefined.
   */
  async recordRefusal(
    scope: string,
    meetingId: string,
    refusal: MoveRefusal,
    serverNow: Date,
  ): Promise<MeetingRecord | undefined> {
    // The refusal answers the move that was sent: it is no longer pending.
    return this.change(scope, meetingId, (held) => ({
      ...withoutPending(held),
      refused: withRefusal(held.refused, refusal, serverNow),
    }));
  }

  /**
   * A move of this meeting is about to be sent (its bytes leave right after), or, with undefined,
   * one marked so never left: kept in the record's body until an answer settles it (recordMove,
   * recordRefusal, markGone). A meeting not on record is not marked: undefined.
   */
  async markMoveSent(
    scope: string,
    meetingId: string,
    pending: PendingMove | undefined,
  ): Promise<MeetingRecord | undefined> {
    return this.change(scope, meetingId, (held) => ({
      ...withoutPending(held),
      ...(pending ? { pendingMove: pending } : {}),
    }));
  }

  /** A meeting on record read and written again in one transaction; undefined (nothing written) when it is not. */
  private async change(
    scope: string,
    meetingId: string,
    next: (held: MeetingRecord) => Partial<MeetingRecord>,
  ): Promise<MeetingRecord | undefined> {
    return (await this.db()).transaction(async (tx) => {
      const held = await getMeeting(tx, scope, meetingId);
      if (!held) return undefined;
      const record = next(held) as MeetingRecord;
      await tx.step([meetingWrite(record)]);
      return record;
    });
  }

  async get(scope: string, meetingId: string): Promise<MeetingRecord | undefined> {
    return getMeeting(await this.db(), scope, meetingId);
  }

  /**
   * This workspace's meetings that pass `q`, earliest first (each narrowing an indexed condition);
   * several workspaces' in one query when `scope` is a list (a lead's record: its workspace and
   * the URL's unattributed records).
   */
  async list(scope: string | readonly string[], q: MeetingQuery = {}): Promise<MeetingRecord[]> {
    const scopes = typeof scope === 'string' ? [scope] : scope;
    const where = [scopes.length === 1 ? 'workspace = ?' : `workspace IN (${scopes.map(() => '?').join(', ')})`];
    const params: SqlValue[] = [...scopes];
    const and = (cond: string, ...values: SqlValue[]) => {
      where.push(cond);
      params.push(...values);
    };
    if (q.email !== undefined) and('lead = ?', leadId(q.email));
    if (q.event !== undefined) {
      const ids = [q.event, ...(q.eventIds ?? []).filter((id) => id !== q.event)];
      if (ids.length === 1) and('(event = ? OR event_id = ?)', q.event, q.event);
      else and(`(event = ? OR event_id IN (${ids.map(() => '?').join(', ')}))`, q.event, ...ids);
    }
    if (q.from !== undefined) and('start_ms >= ?', q.from.getTime());
    if (q.to !== undefined) and('start_ms < ?', q.to.getTime());
    if (q.upcomingFrom !== undefined) and('over_ms > ?', q.upcomingFrom.getTime());
    // Sorted here, not by the query: an ORDER BY that an index could serve tempts SQLite's planner
    // (without statistics) to walk the whole workspace in start order instead of the lead's rows.
    // Only a limit with neither narrowing asks for that walk, which then stops at the limit.
    const walk = q.limit !== undefined && q.email === undefined && q.upcomingFrom === undefined;
    const rows = await (
      await this.db()
    ).all<Row>(
      `SELECT * FROM schedctl_meetings WHERE ${where.join(' AND ')}${walk ? ' ORDER BY start_ms, id LIMIT ?' : ''}`,
      walk ? [...params, q.limit!] : params,
    );
    const sorted = rows.map(recordOf).sort((a, b) => Date.parse(a.date) - Date.parse(b.date) || (a.id < b.id ? -1 : 1));
    return sorted.slice(0, q.limit);
  }

  /**
   * The lead's meetings not canceled, not gone and not over at `now` (one in progress counts: a lead in
   * its meeting has a meeting), earliest first; narrowed by trigger and event when given.
   */
  async findUpcoming(
    scope: string | readonly string[],
    by: UpcomingQuery,
    now: Date = this.now(),
  ): Promise<MeetingRecord[]> {
    // The lead and "not over" are asked of the index (over_ms is where notOver turns false).
    return (await this.list(scope, { email: by.email, upcomingFrom: now })).filter(
      (m) =>
        m.status !== 'canceled' &&
        m.goneAt === undefined &&
        (by.triggerId === undefined || m.triggerId === by.triggerId) &&
        (by.event === undefined || m.event === by.event),
    );
  }
}

async function getMeeting(sql: Sql, scope: string, id: string): Promise<MeetingRecord | undefined> {
  const row = await get<Row>(sql, 'SELECT * FROM schedctl_meetings WHERE workspace = ? AND id = ?', [scope, id]);
  return row && recordOf(row);
}

function withoutPending<T extends Partial<MeetingRecord>>(held: T | undefined): T | undefined {
  if (!held) return undefined;
  const { pendingMove: _pending, ...rest } = held;
  return rest as T;
}

function withoutGone(held: MeetingRecord | undefined): Partial<MeetingRecord> | undefined {
  if (!held) return undefined;
  const { goneAt: _gone, ...rest } = held;
  return rest;
}

/** `{key: value}`, or nothing when undefined: optional fields are absent, not `undefined`, in the file. */
function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

/** user@host of this process: who booked or moved a meeting, shown when the state is shared. */
export function whoAmI(): string {
  return `${currentUser()}@${hostname()}`;
}
