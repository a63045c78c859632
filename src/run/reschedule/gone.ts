/**
 * A move answered 404 NOT_FOUND: the API does not know the meeting now (cancelled in the
 * scheduling app, another account's key, a gateway's mistake during a deploy). The record notes
 * it with its date; the lead is not freed by it (domain/lead-rule.ts): its next booking refuses
 * naming the 404, and `--rebook` is the deliberate way past. A meeting not on record here keeps
 * the API's error as it was.
 */
import type { Context } from '../../context.js';
import { ApiError } from '../../errors.js';
import type { MeetingRecord } from '../../state/index.js';
import { formatInZone } from '../../domain/time.js';

export async function learnGone(
  ctx: Context,
  where: { scope: string; id: string },
  error: ApiError,
  zone: string,
): Promise<ApiError> {
  const state = await ctx.state();
  const at = ctx.clock.now();
  let record: MeetingRecord | undefined;
  try {
    record = await state.meetings.markGone(where.scope, where.id, at);
    await state.journal.markGone(where.scope, where.id, at);
  } catch (cause) {
    (await ctx.ui()).warn(
      `the API no longer has meeting ${where.id}, but the local record could not be updated (${cause instanceof Error ? cause.message : String(cause)})`,
    );
    return error;
  }
  if (!record) return error;
  const was = `${record.personEmail}'s meeting at ${formatInZone(record.date, zone)}`;
  return new ApiError({
    ...error.fields(),
    message: `the API answered 404 for meeting ${where.id} (${was}): noted in the local record; the lead is not freed by it`,
    hint: `check the meeting in the scheduling app; if it is really gone, book ${record.personEmail} anew: ${bookAgainCommand(record)} --rebook`,
  });
}

/** The command that books a gone meeting's lead again: its route (the trigger that routed it) or a booking on its event. */
export function bookAgainCommand(
  m: Pick<MeetingRecord, 'personEmail' | 'triggerId' | 'triggerName' | 'event'>,
): string {
  if (m.triggerId) {
    const trigger = m.triggerName ?? m.triggerId;
    return `schedctl route --trigger ${JSON.stringify(trigger)} --email ${m.personEmail}`;
  }
  return `schedctl book ${m.event} --email ${m.personEmail} --start <time>`;
}
