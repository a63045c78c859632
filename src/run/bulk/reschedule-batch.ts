/**
 * `schedctl reschedule --file moves.csv`: one move per row (one request each), at the rate
 * budget's pace. Rows are validated first, emails resolved through the local record of
 * meetings (no request); a re-run skips the rows already moved and sends the others again
 * (moving a meeting to the time it already has changes nothing).
 */
import { RESCHEDULE_COST } from '../../bulk/plan.js';
import type { RowResult } from '../../bulk/results.js';
import { type RescheduleRow, validateRescheduleRow } from '../../bulk/reschedule-rows.js';
import { workspaceOf } from '../workspace.js';
import type { Context } from '../../context.js';
import { loadTimeExpressions } from '../../domain/human-time.js';
import { resolveZone } from '../../domain/time.js';
import { CliError } from '../../errors.js';
import { meetingToMove, moveMeeting } from '../session/move.js';
import { RATE_PER_MINUTE } from '../../limits.js';
import type { State } from '../../state/index.js';
import { allMeetings, filterMeetings, otherMachinesHint } from '../meetings/records.js';
import { confirmHint, unresolvedAttempts, unresolvedView, unresolvedWhat } from '../meetings/unresolved.js';
import { type BatchOptions, runBatch } from './batch.js';
import { openSource } from './source.js';

export interface RescheduleBatchOptions extends BatchOptions {
  from: string;
  tz?: string | undefined;
}

type Move = { meeting: string; start: Date };

export async function rescheduleBatch(ctx: Context, o: RescheduleBatchOptions): Promise<void> {
  const zone = resolveZone(o.tz, '--tz');
  const source = await openSource(ctx, o.from, '--file');
  await loadTimeExpressions();
  const [ui, target, state] = await Promise.all([ctx.ui(), ctx.target(), ctx.state()]);
  const scope = await workspaceOf(ctx);
  await runBatch<Move>(
    ctx,
    ui,
    source,
    {
      command: 'reschedule',
      scope,
      cost: RESCHEDULE_COST,
      ratePerMinute: target.rate ?? RATE_PER_MINUTE,
      keyOf: (record) => record.meeting || record.email || '',
      starting: (valid) =>
        `Moving ${valid} meetings on ${target.profileName ? `profile "${target.profileName}"` : 'SCHEDCTL_API_KEY'} at ${target.baseUrl}`,
      async check(record) {
        const v = validateRescheduleRow(record, { zone, now: ctx.clock.now() });
        if (!v.ok) return v;
        const found = await meetingOf(state, scope, v.row, ctx.clock.now(), zone);
        return typeof found === 'string'
          ? { ok: false, errors: [found] }
          : { ok: true, row: { meeting: found.id, start: v.row.start } };
      },
      async run(move, line, key): Promise<RowResult> {
        try {
          // The move session, as `reschedule` moves (session/move.ts): under the meeting's lock,
          // marked sent before it leaves, a lost answer's move sent again as it was by a re-run.
          const found = await meetingToMove(state, scope, move.meeting, { zone });
          const moved = await moveMeeting(ctx, found, move.start, { quiet: true });
          return {
            row: line,
            key,
            status: 'moved',
            meetingId: move.meeting,
            meeting: moved.meeting,
            ...(moved.status === 'unchanged' ? { message: 'already at that time on record: nothing was sent' } : {}),
          };
        } catch (error) {
          if (!(error instanceof CliError)) throw error;
          return {
            row: line,
            key,
            status: 'failed',
            meetingId: move.meeting,
            code: error.code,
            message: error.message,
          };
        }
      },
    },
    o,
  );
}

/** The meeting a row names by email: exactly one upcoming meeting of that lead on record, else why not. */
async function meetingOf(
  state: State,
  scope: string,
  row: RescheduleRow,
  now: Date,
  zone: string,
): Promise<{ id: string } | string> {
  if (row.meeting !== undefined) return { id: row.meeting };
  const filter = { email: row.email, upcomingFrom: now };
  const listed = filterMeetings(await allMeetings(state, scope, filter), filter);
  const found = listed.filter((m) => m.id !== null && m.status !== 'canceled');
  if (found.length === 0 && listed.some((m) => m.id === null))
    return `email: ${row.email} has a meeting on record whose id was never received (its booking's answer was lost): give its meeting id, from the scheduling app`;
  const only = found.length === 1 ? found[0]?.id : undefined;
  if (only) return { id: only };
  // Sent with its answer lost (issue 52 finding 7): said as such, not "no meeting".
  const [lost] = found.length === 0 ? await unresolvedAttempts(state, scope, row.email) : [];
  if (lost) {
    const v = unresolvedView(lost);
    return `email: ${unresolvedWhat(v, zone)}; ${confirmHint(v)}`;
  }
  return found.length === 0
    ? `email: no upcoming meeting of ${row.email} in the local record (give its meeting id instead; ${await otherMachinesHint(state, true)})`
    : `email: ${found.length} upcoming meetings of ${row.email} are on record (give the meeting id instead)`;
}
