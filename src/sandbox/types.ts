/**
 * Plain data types of the sandbox: the static workspace (regenerated from the seed)
 * and the mutable state (meetings, reservations, executions) that `--state` persists.
 * Everything here is JSON-serialisable on purpose.
 */
import type { Meeting, Outcome, Question, Scope, TriggerField } from '../api/schemas.js';

export type { Scope };

export interface SandboxKeys {
  full: string;
  readOnly: string;
  revoked: string;
}
export type KeyName = keyof SandboxKeys;

export interface HostRecord {
  id: string;
  name: string;
  profilePictureUrl: string;
  /** IANA zone of the working hours. */
  zone: string;
  /** luxon weekdays, 1 = Monday ... 7 = Sunday. */
  weekdays: number[];
  /** Minutes after local midnight. */
  startMinute: number;
  endMinute: number;
  /** Seeded busy blocks (ISO instants), computed relative to the time the workspace was seeded. */
  busy: { start: string; end: string }[];
}

export type EventConferencing = 'calendar_default' | 'zoom' | 'zoom_personal' | 'in_person';

export interface EventRecord {
  id: string;
  slug: string;
  name: string;
  schedulerTitle: string;
  schedulerDescription: string;
  /** Minutes. */
  duration: number;
  /** Minutes between candidate start times. */
  timeslotIncrement: number;
  conferencingType: EventConferencing;
  location: string;
  createdAt: string;
  updatedAt: string;
  /** The first host is the primary one. */
  hostIds: string[];
  questions: Question[];
}

export interface LinkRecord {
  id: string;
  slug: string;
  name: string;
  eventId: string;
  hostIds: string[];
}

export type RoutingOutcome =
  | { type: 'scheduler'; linkId: string }
  | { type: 'redirect'; url: string /* `{field}` placeholders are filled from responses */ }
  | { type: 'none' };

export interface RoutingRule {
  /** Absent: the rule always matches (the fallback). */
  when?: { field: string; equals: string };
  outcome: RoutingOutcome;
}

export interface TriggerRecord {
  id: string;
  name: string;
  description: string;
  fields: TriggerField[];
  requireWorkEmail: boolean;
  /** First match wins. */
  rules: RoutingRule[];
}

export interface Workspace {
  seed: number;
  keys: SandboxKeys;
  hosts: HostRecord[];
  events: EventRecord[];
  links: LinkRecord[];
  triggers: TriggerRecord[];
}

/** What an `{event}` path parameter or the book `event` field resolved to. */
export interface Target {
  kind: 'event' | 'link';
  id: string;
  event: EventRecord;
  link: LinkRecord | null;
  hostIds: string[];
}

export interface MeetingRecord {
  meeting: Meeting;
  hostIds: string[];
  /** The identifier the client used (`event` of the book request). */
  eventKey: string;
  targetKind: 'event' | 'link';
  targetId: string;
  reservationId: string;
  workflowExecutionId: string | null;
}

export interface ReservationRecord {
  id: string;
  eventId: string;
  eventKey: string;
  targetKind: 'event' | 'link';
  targetId: string;
  hostIds: string[];
  createdAt: string;
  expiresAt: string;
  usedAt: string | null;
}

export interface ExecutionRecord {
  id: string;
  triggerId: string;
  email: string;
  responses: Record<string, string>;
  context: Record<string, unknown> | null;
  outcome: Outcome;
  createdAt: string;
  sessionEndsAt: string;
  endedAt: string | null;
  meetingId: string | null;
}

export interface SandboxState {
  version: 1;
  seed: number;
  rngState: number;
  clockOffsetMs: number;
  meetings: MeetingRecord[];
  reservations: ReservationRecord[];
  executions: ExecutionRecord[];
}

export type FaultKind = 'drop-after-commit' | 'stall-after-commit' | 'status' | 'html' | 'truncate' | 'delay';

export interface FaultRule {
  id: number;
  method?: string;
  path?: string;
  fault: FaultKind;
  remaining: number;
  status?: number;
  code?: string;
  retryAfter?: number;
  delayMs?: number;
}

export interface RequestLogEntry {
  method: string;
  path: string;
  status: number | null;
  key: KeyName | null;
  fault?: FaultKind;
}
