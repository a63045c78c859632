/**
 * The sandbox's single source of truth: the seeded workspace, the mutable state and
 * the sandbox clock (the injected clock plus the offset moved by `/_sandbox/clock`).
 */
import { randomBytes } from 'node:crypto';
import type { HostCalendar } from './availability.js';
import { loadState, saveState } from './persist.js';
import { randomInt } from 'node:crypto';
import { Rng } from './rng.js';
import type {
  ExecutionRecord,
  KeyName,
  RequestLogEntry,
  ReservationRecord,
  SandboxState,
  Target,
  Workspace,
} from './types.js';
import { seedWorkspace } from './workspace.js';
import { must } from './must.js';

export interface StoreOptions {
  seed: number;
  holdSeconds: number;
  /** Slots offered start this many seconds after now at the earliest (0: any future start). */
  slotNoticeSeconds?: number;
  now: () => Date;
  stateFile?: string;
  /** Mix a random number of this start into the runtime ids (SandboxOptions.uniqueIds). */
  uniqueIds?: boolean;
}

export class Store {
  workspace: Workspace;
  state: SandboxState;
  requests: RequestLogEntry[] = [];
  /**
   * Further keys of the sandbox account (`POST /_sandbox/keys`: a rotation), each with the
   * scopes of a demo key. Kept in memory until the sandbox stops or is reset.
   */
  rotatedKeys = new Map<string, Exclude<KeyName, 'revoked'>>();
  private rng: Rng;

  constructor(readonly options: StoreOptions) {
    const loaded = options.stateFile ? loadState(options.stateFile) : undefined;
    // A state file remembers its seed so the ids of its meetings keep resolving.
    this.state = loaded ?? Store.emptyState(options.seed, options.uniqueIds);
    this.rng = new Rng(this.state.rngState);
    this.workspace = seedWorkspace(this.state.seed, this.now());
  }

  private static emptyState(seed: number, unique = false): SandboxState {
    // The workspace (its keys, events, triggers) stays the seed's; only the ids handed out from
    // now on start elsewhere in the sequence. A state file saves the generator, so ids stay unique.
    const nonce = unique ? randomInt(1, 2 ** 32) : 0;
    return {
      version: 1,
      seed,
      rngState: (Rng.fromSeed(seed, 'runtime').state ^ nonce) >>> 0,
      clockOffsetMs: 0,
      meetings: [],
      reservations: [],
      executions: [],
    };
  }

  now(): Date {
    return new Date(this.nowMs());
  }

  nowMs(): number {
    return this.options.now().getTime() + this.state.clockOffsetMs;
  }

  nextId(): string {
    const id = this.rng.uuid();
    this.state.rngState = this.rng.state;
    return id;
  }

  randomDigits(length: number): string {
    const digits = this.rng.digits(length);
    this.state.rngState = this.rng.state;
    return digits;
  }

  /** A new key of the account with the scopes of the `full` or `readOnly` demo key (not from the seeded sequence). */
  rotateKey(scope: Exclude<KeyName, 'revoked'>): string {
    const key = `sk_sandbox_${scope === 'full' ? 'full' : 'read'}_${randomBytes(16).toString('hex')}`;
    this.rotatedKeys.set(key, scope);
    return key;
  }

  /** Link ids and slugs first: a link slug wins over an event slug with the same value. */
  resolve(identifier: string): Target | undefined {
    const { links, events } = this.workspace;
    const link = links.find((l) => l.id === identifier) ?? links.find((l) => l.slug === identifier);
    if (link) {
      const event = must(
        events.find((e) => e.id === link.eventId),
        `event ${link.eventId}`,
      );
      return { kind: 'link', id: link.id, event, link, hostIds: link.hostIds };
    }
    const event = events.find((e) => e.id === identifier) ?? events.find((e) => e.slug === identifier);
    return event ? { kind: 'event', id: event.id, event, link: null, hostIds: event.hostIds } : undefined;
  }

  /** Calendars of the given hosts; `excludeMeetingId` lets a meeting move within its own time. */
  calendars(hostIds: string[], excludeMeetingId?: string): HostCalendar[] {
    return hostIds.map((id) => {
      const host = must(
        this.workspace.hosts.find((h) => h.id === id),
        `host ${id}`,
      );
      const booked = this.state.meetings
        .filter((m) => m.meeting.id !== excludeMeetingId && m.meeting.status !== 'canceled' && m.hostIds.includes(id))
        .map((m) => {
          const start = Date.parse(m.meeting.date);
          return { start, end: start + m.meeting.duration * 60_000 };
        });
      const busy = host.busy.map((b) => ({ start: Date.parse(b.start), end: Date.parse(b.end) }));
      return {
        id,
        zone: host.zone,
        weekdays: host.weekdays,
        startMinute: host.startMinute,
        endMinute: host.endMinute,
        busy,
        booked,
      };
    });
  }

  reservationStatus(r: ReservationRecord): 'active' | 'used' | 'expired' {
    if (r.usedAt) return 'used';
    return this.nowMs() >= Date.parse(r.expiresAt) ? 'expired' : 'active';
  }

  sessionEnded(e: ExecutionRecord): boolean {
    return e.endedAt !== null || this.nowMs() >= Date.parse(e.sessionEndsAt);
  }

  /** Called after every mutation, before the response goes out. */
  commit(): void {
    if (this.options.stateFile) saveState(this.options.stateFile, this.state);
  }

  /** Back to the seeded workspace, keeping the seed the store was started (or loaded) with. */
  reset(): void {
    const seed = this.state.seed;
    this.state = Store.emptyState(seed, this.options.uniqueIds);
    this.rng = new Rng(this.state.rngState);
    this.requests = [];
    this.rotatedKeys.clear();
    this.workspace = seedWorkspace(seed, this.now());
    this.commit();
  }
}
