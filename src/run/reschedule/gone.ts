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
import { isEmailField } from '../../domain/triggers.js';
import { shellWord } from '../route/command-line.js';

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
    hint: `check the meeting in the scheduling app; if it is really gone, book ${record.personEmail} anew: ${bookAgainCommand(record, await formFields(ctx, record.triggerId))} --rebook`,
  });
}

/**
 * The trigger's required fields (the email field aside: --email fills it), for the route the hint
 * names: the answers are not on record, so each is a `<field>` to fill in. Undefined when the
 * trigger list cannot be had (one request, on this error's path only): the hint then names none.
 */
async function formFields(ctx: Context, triggerId: string | undefined): Promise<string[] | undefined> {
  if (!triggerId) return undefined;
  try {
    const { triggers } = await (await ctx.api()).listTriggers();
    const trigger = triggers.find((t) => t.id === triggerId);
    return trigger?.fields.filter((f) => f.required && !isEmailField(f)).map((f) => f.name);
  } catch {
    return undefined;
  }
}

/** The command that books a gone meeting's lead again: its route (the trigger that routed it) or a booking on its event. */
export function bookAgainCommand(
  m: Pick<MeetingRecord, 'personEmail' | 'triggerId' | 'triggerName' | 'event'>,
  fields?: readonly string[],
): string {
  if (m.triggerId) {
    const trigger = m.triggerName ?? m.triggerId;
    const answers = (fields ?? []).map((f) => ` --field ${shellWord(`${f}=<${f}>`)}`).join('');
    // --slot first: without it (and without a terminal) route would ask for the time.
    return `schedctl route --trigger ${JSON.stringify(trigger)} --email ${m.personEmail}${answers} --slot first`;
  }
  // book fetches the free times itself (a day in --start books its first one: run/book/start.ts).
  return `schedctl book ${m.event} --email ${m.personEmail} --start <time>`;
}
