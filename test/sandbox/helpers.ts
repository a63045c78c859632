/** Shared helpers for the sandbox tests: plain fetch, no schedctl client code. */
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import { strictSchemas } from '../../src/api/schemas.js';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/server.js';

export interface Api {
  sb: Sandbox;
  call(
    method: string,
    path: string,
    body?: unknown,
    key?: string | null,
    init?: RequestInit,
  ): Promise<{ status: number; body: any; headers: Headers }>;
  hook(method: string, path: string, body?: unknown): Promise<any>;
  state(): Promise<any>;
}

export async function start(options: SandboxOptions = {}): Promise<Api> {
  // Two minutes' notice: a test that books the first slot offered cannot see it slip into the past.
  const sb = await startSandbox({ rateLimit: 0, slotNoticeSeconds: 120, ...options });
  const call: Api['call'] = async (method, path, body, key = sb.keys.full, init = {}) => {
    const headers: Record<string, string> = {};
    if (key !== null) headers.authorization = `Bearer ${key}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(sb.baseUrl + path, {
      method,
      headers,
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      ...init,
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      /* leave as text */
    }
    return { status: res.status, body: parsed, headers: res.headers };
  };
  const hook: Api['hook'] = async (method, path, body) => {
    const res = await fetch(sb.baseUrl + path, { method, body: body === undefined ? undefined : JSON.stringify(body) });
    return res.json();
  };
  return { sb, call, hook, state: () => hook('GET', '/_sandbox/state') };
}

/**
 * Registers the file's sandbox hooks: one sandbox started before all tests (with `options`) and
 * closed after them; with `reset`, reset before each test. The Api it returns is valid inside
 * hooks and tests; hooks the file adds later run after these.
 */
export function useApi(options: SandboxOptions = {}, { reset = false }: { reset?: boolean } = {}): Api {
  let api: Api | undefined;
  const started = (): Api => {
    if (!api) throw new Error('the sandbox is started in beforeAll: use it inside hooks and tests');
    return api;
  };
  beforeAll(async () => {
    api = await start(options);
  });
  // Optional: if starting failed, that is the error to see, not a second one from here.
  afterAll(() => api?.sb.close());
  if (reset) beforeEach(() => started().hook('POST', '/_sandbox/reset'));
  return {
    get sb() {
      return started().sb;
    },
    call: (...args) => started().call(...args),
    hook: (...args) => started().hook(...args),
    state: () => started().state(),
  };
}

/** Asserts the exact error envelope and returns it. */
export function expectError(res: { status: number; body: any; headers: Headers }, status: number, code: string) {
  expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status, code });
  expect(strictSchemas.apiError.parse(res.body)).toBeTruthy();
  expect(res.headers.get('access-control-allow-origin')).toBeNull();
  return res.body.error as { code: string; message: string; details?: string[] };
}

export const iso = (ms: number) => new Date(ms).toISOString();
export const DAY = 86_400_000;

/** A week of slots for an event or link, as a fresh reservation. */
export async function slotsFor(api: Api, event: string, days = 7, reservationId?: string) {
  const now = Date.parse((await api.hook('GET', '/_sandbox/clock')).now);
  const res = await api.call('POST', `/v1/scheduling/events/${encodeURIComponent(event)}/slots`, {
    start: iso(now),
    end: iso(now + days * DAY),
    ...(reservationId ? { reservationId } : {}),
  });
  expect(res.status).toBe(200);
  return strictSchemas.slotsResult.parse(res.body);
}

export async function triggerByName(api: Api, name: string) {
  const res = await api.call('GET', '/v1/triggers');
  return strictSchemas.triggersList.parse(res.body).triggers.find((t) => t.name === name)!;
}
