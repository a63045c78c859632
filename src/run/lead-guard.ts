/**
 * "One lead, one meeting": before any new booking (book, route, bulk rows, the MCP tools) the
 * lead's record in the workspace is asked (state/ledger.ts) and the ledger's rule applied
 * (domain/lead-rule.ts). The identical request again is answered from the record; an upcoming
 * meeting, or a sent attempt whose outcome is unknown, on any event, trigger or answers, is a
 * refusal (exit 5) naming it and how to resolve it, or a question on a terminal. `rebook` books
 * anyway, warning when an earlier outcome is unknown.
 */
import { serverClockOf } from '../api/server-clock.js';
import type { Context } from '../context.js';
import {
  decide,
  refuses,
  type BookingIntent,
  type LeadRecord,
  type Refusal,
  type Verdict,
} from '../domain/lead-rule.js';
import { SKEW_REPORT_MS } from '../domain/server-clock.js';
import { formatInZone } from '../domain/time.js';
import { CancelledError, LeadHasMeetingError, LeadOutcomeUnknownError } from '../errors.js';
import { PATHS } from '../api/paths.js';
import type { JournalEntry, LockWait, MeetingRecord, State } from '../state/index.js';
import { describeHolder } from '../state/errors.js';
import { isUnattributed, leadRecord } from '../state/ledger.js';

export interface LeadGuardQuery {
  scope: string;
  email: string;
  intent: BookingIntent;
  zone: string;
  rebook: boolean;
  /** The command that books another one anyway (without its --rebook), for the refusal's hint. */
  again: string;
  /** How to name the rebook switch in hints (`--rebook`; MCP: `rebook: true`). */
  rebookWord?: string;
  /** Bulk runs and the MCP server never ask: a request that would book again fails with the refusal. */
  noPrompt?: boolean;
  /** What the refusal says was sent: "nothing was sent" unless the command read something first (book's free times). */
  sent?: string;
  /** The lead's record asked ahead (askLeadRecord): the first judgement uses it, and its clock reading. */
  asked?: AskedRecord | undefined;
}

/** The lead's record as asked at a reading of the server's clock (askLeadRecord). */
export type AskedRecord = Promise<{ now: Date; record: LeadRecord }>;

/**
 * Asks the lead's record now, as the guard's first judgement would (on the server's clock), so
 * that its reads go out with others asked at the same moment (one round trip on a team state).
 */
export function askLeadRecord(
  ctx: Context,
  state: Pick<State, 'journal' | 'meetings'>,
  scope: string,
  email: string,
): AskedRecord {
  const asked = (async () => {
    const { baseUrl } = await ctx.target();
    const now = serverClockOf(ctx).ledgerNow(baseUrl);
    return { now, record: await leadRecord(state, scope, email, now) };
  })();
  asked.catch(() => {});
  return asked;
}

/** What the caller does next: book, or answer from the record (the identical request again). */
export type GuardResult =
  { kind: 'go' } | { kind: 'repeat'; meeting: MeetingRecord } | { kind: 'repeat_attempt'; attempt: JournalEntry };

export async function guardLead(
  ctx: Context,
  state: Pick<State, 'journal' | 'meetings' | 'events'>,
  q: LeadGuardQuery,
): Promise<GuardResult> {
  // "Upcoming" by the server's clock (shared/ledger-rules.md, "Whose clock"), never this machine's alone.
  const { baseUrl } = await ctx.target();
  const clock = serverClockOf(ctx);
  const judge = async (now: Date, asked?: LeadRecord) => {
    const record = asked ?? (await leadRecord(state, q.scope, q.email, now));
    // The aliases the rule may ask about: the event booked, and the events of attempts known to have booked.
    const named = [
      ...(q.intent.kind === 'book' ? [q.intent.event] : []),
      ...record.bookedUnrecorded.map((a) => a.event),
    ];
    const aliases = await state.events.of(q.scope, named);
    return decide(record, q.intent, { rebook: q.rebook, aliases });
  };
  /**
   * Whether another clock could change the verdict: a refusal made only because the time on
   * record lags this clock by more than a minute (the meeting may be over by now), or a meeting
   * on record that this reading calls over (this clock may be ahead of the server's).
   */
  const clockMatters = async (verdict: Verdict, now: Date): Promise<boolean> => {
    if (blocks(verdict)) return ctx.clock.now().getTime() - now.getTime() > SKEW_REPORT_MS;
    return verdict.kind === 'send' && !q.rebook && (await judge(new Date(0))).kind !== 'send';
  };
  const first = await q.asked;
  let now = first?.now ?? clock.ledgerNow(baseUrl);
  let verdict = await judge(now, first?.record);
  // Not heard from the server yet in this command (`book` asks before its one request), and the
  // verdict depends on the clock: one read hears the server's time (any answer carries it, a
  // refusal too) before deciding on an old reading, or on this clock alone.
  if (!clock.heard(baseUrl) && (await clockMatters(verdict, now))) {
    await hearServer(ctx);
    if (clock.heard(baseUrl)) {
      now = clock.ledgerNow(baseUrl);
      verdict = await judge(now);
    }
  }
  switch (verdict.kind) {
    case 'send':
      for (const a of verdict.maybeBooked) {
        (await ctx.ui()).warn(
          `booking anyway (rebook), but an earlier booking of ${a.personEmail} has an unknown outcome: ${attemptPhrase(a, q.zone)}; a meeting may already exist`,
        );
        // Said once: the user chose to book past it, so it blocks this lead no more.
        await state.journal.update(a.id, { acknowledgedAt: now.toISOString() });
      }
      return { kind: 'go' };
    case 'repeat':
      return { kind: 'repeat', meeting: verdict.meeting };
    case 'repeat_attempt':
      return { kind: 'repeat_attempt', attempt: verdict.attempt };
    default:
      return refuseOrAsk(ctx, verdict, q);
  }
}

const blocks = (v: Verdict): boolean => refuses(v) && v.kind !== 'unknown_attempt';

/** One read of the API, for the Date header of its answer; whatever it answers (or fails) is not the point. */
async function hearServer(ctx: Context): Promise<void> {
  try {
    await (await ctx.http()).request({ method: 'GET', path: PATHS.triggers, safety: 'retry' });
  } catch {
    // A refusal (401, 403) carries the Date header too; with no answer at all, the record decides.
  }
}

async function refuseOrAsk(ctx: Context, verdict: Refusal, q: LeadGuardQuery): Promise<GuardResult> {
  const rebook = q.rebookWord ?? '--rebook';
  const unknown = verdict.kind === 'unknown_attempt';
  const what = describeBlock(verdict, q);
  if (ctx.canPrompt() && !ctx.globals.json && !q.noPrompt) {
    const { confirm } = await import('@inquirer/prompts');
    const ok = await confirm(
      {
        message: `${what}. ${unknown || verdict.kind === 'not_found' ? 'Book anyway (a meeting may already exist)?' : 'Book another one anyway?'}`,
        default: false,
      },
      { input: ctx.io.stdin, output: ctx.io.stderr },
    );
    if (!ok) throw new CancelledError('nothing was booked');
    return { kind: 'go' };
  }
  if (verdict.kind === 'unknown_attempt') {
    throw new LeadOutcomeUnknownError(`${what}; ${q.sent ?? 'nothing was sent'}`, {
      hint: `to learn its outcome, send that booking again as it was: ${resendHint(verdict.attempt)}; to book anyway (a meeting may already exist): ${q.again} ${rebook}`,
    });
  }
  if (verdict.kind === 'not_found') {
    throw new LeadHasMeetingError(`${what}; ${q.sent ?? 'nothing was sent'}`, {
      hint: `check the host's calendar or the scheduling app; if the meeting is really gone, book anew: ${q.again} ${rebook}`,
    });
  }
  const id = verdict.kind === 'has_meeting' ? verdict.meeting.id : verdict.attempt.meetingId;
  throw new LeadHasMeetingError(`${what}; ${q.sent ?? 'nothing was sent'}`, {
    hint: `${id ? `to move it: schedctl reschedule ${id} --start <time>; ` : ''}to book another one anyway: ${q.again} ${rebook}`,
  });
}

function describeBlock(verdict: Refusal, q: LeadGuardQuery) {
  const scope =
    verdict.kind === 'has_meeting'
      ? verdict.meeting.scope
      : verdict.kind === 'not_found'
        ? verdict.note.scope
        : verdict.attempt.scope;
  // Why a record no key of this workspace wrote blocks it: said, or the refusal looks wrong.
  const legacy = isUnattributed(scope)
    ? ' (a record from before workspaces whose profile is not in this config directory: every workspace at this API honours it)'
    : '';
  return describeRecord(verdict, q) + legacy;
}

function describeRecord(verdict: Refusal, q: LeadGuardQuery) {
  if (verdict.kind === 'not_found') {
    const n = verdict.note;
    return `${q.email} has meeting ${n.id} at ${formatInZone(n.date, q.zone)} on record, and the API answered 404 for it on ${formatInZone(n.goneAt, q.zone)} (deleted, another account's key, or a passing fault: it may still exist)`;
  }
  if (verdict.kind === 'has_meeting') {
    const m = verdict.meeting;
    const how = m.triggerId ? `routed by trigger ${m.triggerId}` : `on ${m.event}`;
    // A move sent and never answered: the meeting may be at either time.
    const at = m.pendingMove
      ? `${formatInZone(m.date, q.zone)} or, if its unanswered move landed, ${formatInZone(m.pendingMove.to, q.zone)}`
      : formatInZone(m.date, q.zone);
    return `${q.email} already has meeting ${m.id} at ${at} (${how}, on record since ${formatInZone(m.recordedAt, q.zone)})`;
  }
  const a = verdict.attempt;
  if (verdict.kind === 'has_booked_attempt')
    return `${q.email} already has a meeting${a.meetingId ? ` ${a.meetingId}` : ''} at ${formatInZone(a.startTime, q.zone)} (booked on ${a.event}; a retry proved it)`;
  return `an earlier booking of ${q.email} has an unknown outcome: ${attemptPhrase(a, q.zone)}`;
}

function attemptPhrase(a: JournalEntry, zone: string): string {
  const how = a.lostBy === 'error_answer' ? 'the server answered an error' : 'its answer was lost';
  return `${a.event} at ${formatInZone(a.startTime, zone)}, sent ${a.sentAt ? formatInZone(a.sentAt, zone) : 'earlier'}, ${how}`;
}

/** How to send an earlier attempt again as it was (the spec's retry: it cannot book twice). */
export function resendHint(a: JournalEntry): string {
  if (a.triggerId) return 'run the same route again for this lead with the same answers';
  const run = a.workflowExecutionId ? ` --execution ${a.workflowExecutionId}` : '';
  return `schedctl book ${a.event} --start ${a.startTime} --reservation ${a.reservationId} --email ${a.personEmail}${run}`;
}

/**
 * What a run waiting for another run's lead lock says on stderr: at once who holds it, then how
 * long it has waited (every few seconds, one line each).
 */
export function leadWaitPrinter(ctx: Context, label: string): (wait: LockWait) => void {
  let first = true;
  return (wait) => {
    const line = first
      ? `waiting for another schedctl run booking ${label}: ${describeHolder(wait.owner)}`
      : `still waiting for ${label} (${Math.round(wait.waitedMs / 1000)} s of at most ${Math.round(wait.waitMs / 1000)} s)`;
    first = false;
    void ctx.ui().then((ui) => ui.info(line));
  };
}
