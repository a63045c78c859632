/**
 * Test hooks under /_sandbox (never /v1, no key). The server only routes loopback
 * peers here; everyone else gets a plain 404.
 */
import * as z from '../api/zod.js';
import { type FaultBook, faultInputSchema } from './faults.js';
import { ApiFailure, errorReply, failureReply, notFound, parseJson, validate, type Reply } from './http.js';
import type { RateLimiter } from './ratelimit.js';
import type { Store } from './store.js';

export interface HookDeps {
  store: Store;
  faults: FaultBook;
  limiter: RateLimiter;
  /** Ends every `delay` fault's wait in progress now; returns how many it ended. */
  releaseDelays(): number;
}

const clockSchema = z.strictObject({ advanceSeconds: z.number().check(z.gte(0)) });
const keySchema = z.strictObject({ scope: z.enum(['full', 'read']) });

export function stateView(store: Store) {
  const hostName = (id: string) => store.workspace.hosts.find((h) => h.id === id)?.name ?? id;
  return {
    now: store.now().toISOString(),
    meetings: store.state.meetings.map((m) => ({
      id: m.meeting.id,
      eventId: m.meeting.eventId,
      event: m.eventKey,
      date: m.meeting.date,
      status: m.meeting.status,
      personEmail: m.meeting.personEmail,
      workflowExecutionId: m.workflowExecutionId,
      reservationId: m.reservationId,
      duration: m.meeting.duration,
      hostIds: m.hostIds,
      hosts: m.hostIds.map(hostName),
    })),
    reservations: store.state.reservations.map((r) => ({
      id: r.id,
      eventId: r.eventId,
      event: r.eventKey,
      expiresAt: r.expiresAt,
      status: store.reservationStatus(r),
      hostIds: r.hostIds,
    })),
    executions: store.state.executions.map((e) => ({
      id: e.id,
      triggerId: e.triggerId,
      email: e.email,
      outcome: e.outcome,
      meetingId: e.meetingId,
      sessionEnded: store.sessionEnded(e),
      createdAt: e.createdAt,
    })),
    requests: store.requests,
  };
}

export function handleHook(
  { store, faults, limiter, releaseDelays }: HookDeps,
  method: string,
  path: string,
  rawBody: string | null,
): Reply {
  try {
    const body = () => parseJson(rawBody ?? '');
    const ok = (value: unknown, status = 200): Reply => ({ status, body: value });
    const key = `${method} ${path}`;
    switch (key) {
      case 'GET /_sandbox/state':
        return ok(stateView(store));
      case 'GET /_sandbox/faults':
        return ok({ faults: faults.list() });
      case 'POST /_sandbox/faults':
        return ok({ fault: faults.add(validate(faultInputSchema, body(), 'fault rule')) }, 201);
      case 'POST /_sandbox/faults/release':
        return ok({ released: releaseDelays() });
      case 'DELETE /_sandbox/faults':
        faults.clear();
        return ok({ faults: [] });
      case 'GET /_sandbox/clock':
        return ok({ now: store.now().toISOString() });
      case 'POST /_sandbox/clock': {
        store.state.clockOffsetMs += validate(clockSchema, body(), 'clock request').advanceSeconds * 1000;
        store.commit();
        return ok({ now: store.now().toISOString() });
      }
      case 'POST /_sandbox/keys': {
        const { scope } = validate(keySchema, body(), 'key request');
        return ok({ key: store.rotateKey(scope === 'full' ? 'full' : 'readOnly'), scope }, 201);
      }
      case 'POST /_sandbox/reset':
        store.reset();
        faults.clear();
        limiter.clear();
        return ok({ now: store.now().toISOString() });
    }
    const end = /^\/_sandbox\/executions\/([^/]+)\/end$/.exec(path);
    if (method === 'POST' && end) {
      const execution = store.state.executions.find((e) => e.id === end[1]);
      if (!execution) throw notFound(`Workflow execution ${end[1]} does not exist.`);
      execution.endedAt ??= store.now().toISOString();
      store.commit();
      return ok({ id: execution.id, sessionEnded: true });
    }
    return errorReply(404, 'NOT_FOUND', `No sandbox hook ${method} ${path}.`);
  } catch (err) {
    if (err instanceof ApiFailure) return failureReply(err);
    return errorReply(500, 'INTERNAL_ERROR', `Sandbox hook error: ${(err as Error).message}`);
  }
}
