/**
 * Meetings booked, moved or found through schedctl (`meetings.json`, `{meetings: {key: record}}`,
 * keyed by `${scope} ${meetingId}`): for `meetings ls/show`, for a reschedule that needs the
 * event it was booked with, and so that a lead is not booked twice by accident.
 */
import { hostname } from 'node:os';
import { currentUser } from './lead-lock.js';
import type { Meeting } from '../api/schemas.js';
import { FileStore } from './json-file.js';
import { own, put, sameEmail } from './records.js';
import type { MeetingMove, MeetingRecord, MeetingsFile } from './schemas.js';

export type { MeetingMove, MeetingRecord };
export type MeetingSource = MeetingRecord['source'];
export interface MeetingToRecord {
  scope: string;
  meeting: Meeting;
  source: MeetingSource;
  /** The event or scheduling link id it was booked with. */
  event: string;
  triggerId?: string | undefined;
  answersKey?: string | undefined;
}
export interface UpcomingQuery {
  email: string;
  triggerId?: string;
  event?: string;
}

const keyOf = (scope: string, meetingId: string) => `${scope} ${meetingId}`;
/**
 * Whether a meeting is not over at `now` (epoch ms): "upcoming" everywhere in schedctl, so one
 * in progress counts (a lead in a meeting has a meeting). Without a duration (a booking
 * recovered from a retry's answer), until it starts.
 */
export function notOver(m: { date: string; duration: number | null }, now: number): boolean {
  const start = Date.parse(m.date);
  return m.duration === null ? start >= now : start + m.duration * 60_000 > now;
}
const byDate = (a: MeetingRecord, b: MeetingRecord) => Date.parse(a.date) - Date.parse(b.date);

export class Meetings extends FileStore<MeetingsFile> {
  /**
   * Records (or refreshes) a meeting. For one already recorded, the server's fields are
   * refreshed while its first source, recordedAt and history stay: they tell how it got here.
   */
  async record(input: MeetingToRecord): Promise<MeetingRecord> {
    const recordedAt = this.now().toISOString();
    return this.file.update(({ meetings }) => {
      const key = keyOf(input.scope, input.meeting.id);
      const held = own(meetings, key);
      const record: MeetingRecord = {
        ...held,
        ...input.meeting,
        scope: input.scope,
        source: held?.source ?? input.source,
        recordedAt: held?.recordedAt ?? recordedAt,
        event: input.event,
        ...optional('triggerId', input.triggerId ?? held?.triggerId),
        ...optional('answersKey', input.answersKey ?? held?.answersKey),
        bookedBy: held?.bookedBy ?? whoAmI(),
        history: held?.history ?? [],
      };
      put(meetings, key, record);
      return record;
    });
  }

  /**
   * A meeting moved to `meeting.date`. A meeting not recorded here yet is recorded as
   * `rescheduled` (its old time unknown: the move has no `from`; its event is the meeting's eventId).
   */
  async recordMove(scope: string, meetingId: string, meeting: Meeting, at: Date | string): Promise<MeetingRecord> {
    const when = typeof at === 'string' ? at : at.toISOString();
    return this.file.update(({ meetings }) => {
      const key = keyOf(scope, meetingId);
      const held = own(meetings, key);
      const moved = !held || Date.parse(held.date) !== Date.parse(meeting.date);
      const move: MeetingMove = { ...optional('from', held?.date), to: meeting.date, at: when, by: whoAmI() };
      const record: MeetingRecord = {
        ...held,
        ...meeting,
        scope,
        source: held?.source ?? 'rescheduled',
        recordedAt: held?.recordedAt ?? when,
        event: held?.event ?? meeting.eventId,
        bookedBy: held?.bookedBy ?? whoAmI(),
        history: [...(held?.history ?? []), ...(moved ? [move] : [])],
      };
      put(meetings, key, record);
      return record;
    });
  }

  /** Records written under a legacy scope move to the workspace (state/identity.ts). */
  async adopt(from: string, to: string): Promise<void> {
    if (!Object.values((await this.file.read()).meetings).some((m) => m.scope === from)) return;
    await this.file.update(({ meetings }) => {
      for (const [key, m] of Object.entries(meetings)) {
        if (m.scope !== from) continue;
        delete meetings[key];
        put(meetings, keyOf(to, m.id), { ...m, scope: to });
      }
    });
  }

  async get(scope: string, meetingId: string): Promise<MeetingRecord | undefined> {
    return own((await this.file.read()).meetings, keyOf(scope, meetingId));
  }

  /** This workspace's meetings, earliest first. */
  async list(scope: string): Promise<MeetingRecord[]> {
    return Object.values((await this.file.read()).meetings)
      .filter((m) => m.scope === scope)
      .sort(byDate);
  }

  /**
   * The lead's meetings not canceled and not over at `now` (one in progress counts: a lead in
   * its meeting has a meeting), earliest first; narrowed by trigger and event when given.
   */
  async findUpcoming(scope: string, by: UpcomingQuery, now: Date = this.now()): Promise<MeetingRecord[]> {
    return (await this.list(scope)).filter(
      (m) =>
        sameEmail(m.personEmail, by.email) &&
        m.status !== 'canceled' &&
        notOver(m, now.getTime()) &&
        (by.triggerId === undefined || m.triggerId === by.triggerId) &&
        (by.event === undefined || m.event === by.event),
    );
  }
}

/** `{key: value}`, or nothing when undefined: optional fields are absent, not `undefined`, in the file. */
function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

/** user@host of this process: who booked or moved a meeting, shown when the state is shared. */
export function whoAmI(): string {
  return `${currentUser()}@${hostname()}`;
}
