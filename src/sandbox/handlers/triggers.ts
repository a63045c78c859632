/** GET /v1/triggers and POST /v1/triggers/{trigger} (fire). */
import { fireRequestSchema } from '../../api/request-schemas.js';
import type { Outcome, Trigger } from '../../api/schemas.js';
import { isPersonalEmail, sameEmail } from '../email.js';
import { ApiFailure, invalid, notFound, validate, type Reply } from '../http.js';
import type { Store } from '../store.js';
import type { ExecutionRecord, RoutingOutcome, TriggerRecord } from '../types.js';
import type { HandlerContext } from './context.js';
import { must } from '../must.js';

/** A scheduler session (the window in which the routed lead may book) lasts this long. */
export const SESSION_MINUTES = 60;

const toTrigger = (t: TriggerRecord): Trigger => ({
  id: t.id,
  name: t.name,
  description: t.description,
  fields: t.fields,
});

export function listTriggers(ctx: HandlerContext): Reply {
  return { status: 200, body: { triggers: ctx.store.workspace.triggers.map(toTrigger) } };
}

/**
 * Checks `responses` against the form: required fields, select options, and the email
 * field (filled from `email`; a different value is a conflict). Unknown keys are ignored,
 * as a form would ignore them. Returns the normalised string responses.
 */
function checkResponses(trigger: TriggerRecord, email: string, raw: Record<string, unknown>): Record<string, string> {
  const details: string[] = [];
  const out: Record<string, string> = {};
  for (const field of trigger.fields) {
    const given = raw[field.name];
    const key = `responses.${field.name}`;
    if (field.name === 'email') {
      if (given !== undefined && (typeof given !== 'string' || !sameEmail(given, email))) {
        details.push(`${key}: conflicts with email ${email}; omit it or send the same address`);
      }
      out.email = email;
      continue;
    }
    if (given === undefined || given === null || given === '') {
      if (field.required) details.push(`${key}: required`);
      continue;
    }
    if (typeof given !== 'string') {
      details.push(`${key}: must be a string`);
      continue;
    }
    if (field.options && !field.options.some((o) => o.value === given)) {
      details.push(`${key}: must be one of ${field.options.map((o) => o.value).join(', ')}`);
      continue;
    }
    out[field.name] = given;
  }
  if (details.length > 0) {
    const keys = details.map((d) => d.slice('responses.'.length, d.indexOf(':')));
    throw invalid(`Fix these responses: ${keys.join(', ')}.`, details);
  }
  return out;
}

function route(
  store: Store,
  trigger: TriggerRecord,
  responses: Record<string, string>,
  executionId: string,
  baseUrl: string,
): Outcome {
  const rule = trigger.rules.find((r) => !r.when || responses[r.when.field] === r.when.equals);
  const outcome: RoutingOutcome = rule?.outcome ?? { type: 'none' };
  if (outcome.type === 'scheduler') {
    const link = must(
      store.workspace.links.find((l) => l.id === outcome.linkId),
      `link ${outcome.linkId}`,
    );
    // The sandbox has no booking UI; the address follows the shape of a real one.
    return {
      type: 'scheduler',
      schedulingLinkId: link.id,
      schedulerUrl: `${baseUrl}/book/${link.slug}?executionId=${executionId}`,
    };
  }
  if (outcome.type === 'redirect') {
    return {
      type: 'redirect',
      url: outcome.url.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(responses[name] ?? '')),
    };
  }
  return { type: 'none' };
}

export function fireTrigger(ctx: HandlerContext): Reply {
  const { store } = ctx;
  const trigger = store.workspace.triggers.find((t) => t.id === ctx.params.trigger);
  if (!trigger) throw notFound(`Trigger ${ctx.params.trigger} does not exist in this workspace.`);
  const body = validate(fireRequestSchema, ctx.json(), 'trigger request');
  const responses = checkResponses(trigger, body.email, body.responses ?? {});
  if (trigger.requireWorkEmail && isPersonalEmail(body.email)) {
    throw new ApiFailure(
      400,
      'WORK_EMAIL_REQUIRED',
      `${trigger.name} requires a work email; ${body.email} is a personal address.`,
    );
  }
  const now = store.nowMs();
  const id = store.nextId();
  const execution: ExecutionRecord = {
    id,
    triggerId: trigger.id,
    email: body.email,
    responses,
    context: (body.context as Record<string, unknown> | undefined) ?? null,
    outcome: route(store, trigger, responses, id, ctx.baseUrl),
    createdAt: new Date(now).toISOString(),
    sessionEndsAt: new Date(now + SESSION_MINUTES * 60_000).toISOString(),
    endedAt: null,
    meetingId: null,
  };
  store.state.executions.push(execution);
  store.commit();
  return { status: 200, body: { executionId: execution.id, outcome: execution.outcome } };
}
