/**
 * `meetings history <email>`: what happened to this lead, as the ledger holds it (timeline.ts).
 * Read through the stores of the State interface, so on a team state it is the team's record.
 * No API request.
 */
import { workspaceOf } from '../workspace.js';
import type { Context } from '../../context.js';
import { requireEmail } from '../../domain/inputs.js';
import { formatInZone, resolveZone } from '../../domain/time.js';
import { UsageError } from '../../errors.js';
import { leadId, unattributedScope, urlOfWorkspace } from '../../state/identity.js';
import { sanitizeText } from '../../ui/sanitize.js';
import { timeline, triggersOf, type TimelineEntry } from './timeline.js';

export async function run(ctx: Context, [raw = '']: string[], opts: { tz?: string }): Promise<void> {
  if (!raw.trim())
    throw new UsageError("missing <email>: pass the lead's email (schedctl meetings history ada@acme.example)");
  // The lead as the ledger knows it (state/identity.ts): ADA@acme.example is ada@acme.example.
  const email = leadId(requireEmail(raw, '<email>'));
  const zone = resolveZone(opts.tz, '--tz');
  const [state, scope] = await Promise.all([ctx.state(), workspaceOf(ctx)]);
  // The lead's record as the ledger's rule reads it (state/ledger.ts): the workspace, and the
  // URL's records from before workspaces that no profile could be given.
  const unattributed = unattributedScope(urlOfWorkspace(scope));
  const scopes = unattributed === scope ? [scope] : [scope, unattributed];
  const [fires, attempts, meetings] = await Promise.all([
    state.fires.ofLead(scopes, email),
    state.journal.ofLead(scopes, email),
    state.meetings.list(scopes, { email }),
  ]);
  const outcomes = await state.outcomes.ofLead(scopes, email, triggersOf({ fires, attempts, meetings }));
  const entries = timeline({ fires, outcomes, attempts, meetings });
  const ui = await ctx.ui();
  if (ctx.globals.json) return ui.json({ email, workspace: scope, entries });
  const team = (await state.backend()).kind === 'postgres';
  ui.info(
    `The record of ${email} in workspace ${scope} (${team ? "the team state's: every machine's" : "this machine's"}; times in ${zone}):`,
  );
  if (entries.length === 0)
    return ui.info('nothing on record for this lead (no fire, booking or meeting through schedctl)');
  ui.print(entries.map((e) => line(e, zone)).join('\n'));
}

const time = (iso: unknown, zone: string): string => (typeof iso === 'string' ? formatInZone(iso, zone) : '?');
const str = (v: unknown): string => sanitizeText(typeof v === 'string' ? v : String(v ?? ''));

/** One entry for people: its time, what it was, what it proved; server text sanitized. */
function line(e: TimelineEntry, zone: string): string {
  const by = e.by ? `  [by ${str(e.by)}]` : '';
  return `${time(e.at, zone)}  ${e.kind.padEnd(20)}  ${describe(e, zone)}${by}`;
}

function describe(e: TimelineEntry, zone: string): string {
  switch (e.kind) {
    case 'fire': {
      const trigger = `trigger ${str(e.triggerId)}`;
      if (e.answer === 'received') return `fired ${trigger}`;
      if (e.answer === 'none')
        return `fired ${trigger}: sent, no answer on record (lost, or the run was stopped): it may have started a workflow run`;
      return `${trigger}: prepared, not sent`;
    }
    case 'fire_answer':
      return `trigger ${str(e.triggerId)} answered: workflow run ${str(e.executionId)}, outcome ${str(e.outcomeType)}`;
    case 'outcome':
      return `remembered outcome of trigger ${str(e.triggerId)}: ${str(e.outcomeType)}${e.schedulingLinkId ? ` (link ${str(e.schedulingLinkId)})` : ''}, workflow run ${str(e.executionId)}`;
    case 'booking': {
      const what = `${str(e.event)} at ${time(e.startTime, zone)}, reservation ${str(e.reservationId)}${e.executionId ? `, run ${str(e.executionId)}` : ''}`;
      switch (e.outcome) {
        case 'not_sent':
          return `${what}: prepared, never sent (it booked nothing)`;
        case 'unknown':
          return `${what}: sent, ${e.lostBy === 'error_answer' ? 'the server answered an error: outcome unknown, it may have booked' : 'its answer was lost: outcome unknown, it almost certainly booked'}${e.confirm ? `; to confirm, send it again: ${str(e.confirm)}` : ''}`;
        case 'already_booked':
          return `${what}: sent, its answer lost; a retry proved it booked${e.meetingId ? ` (meeting ${str(e.meetingId)})` : ' (its meeting id never received)'}`;
        default:
          return `${what}: booked${e.meetingId ? ` meeting ${str(e.meetingId)}` : ''}`;
      }
    }
    case 'booking_settled':
      return `a retry proved the booking on ${str(e.event)} at ${time(e.startTime, zone)} booked${e.meetingId ? ` (meeting ${str(e.meetingId)})` : ' (its meeting id never received)'}`;
    case 'booking_acknowledged':
      return `attempt ${str(e.attemptId)}'s unknown outcome booked past (--rebook): it blocks no more`;
    case 'meeting':
      return `meeting ${str(e.meetingId)} ${str(e.source)}: ${time(e.date, zone)}${e.title ? ` "${str(e.title)}"` : ''} on ${str(e.event)}, ${str(e.status)}${e.triggerName ? `, routed by "${str(e.triggerName)}"` : ''}`;
    case 'move':
      return `meeting ${str(e.meetingId)} moved${e.from ? ` from ${time(e.from, zone)}` : ''} to ${time(e.to, zone)}`;
    case 'move_refused':
      return `meeting ${str(e.meetingId)}: a move to ${time(e.startTime, zone)} refused (409 CONFLICT: its host cannot take it; nothing changed)`;
    case 'move_unanswered':
      return `meeting ${str(e.meetingId)}: a move to ${time(e.to, zone)} was sent and its answer lost (it may have moved); the next move sends it again as it was`;
    case 'not_found':
      return `the API answered 404 for meeting ${str(e.meetingId)} (to a move: deleted, of another account, or a gateway's mistake)`;
  }
}
