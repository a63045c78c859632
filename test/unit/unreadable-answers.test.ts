/**
 * A 2xx answer that cannot be read (empty, not JSON, the wrong shape), for each endpoint the
 * CLI's commands call, read by the HTTP client the CLI builds (its own transport, the
 * endpoints' schemas): a read is BAD_RESPONSE (exit 1), a booking, move or fire (the server
 * said it acted but not what it did) OUTCOME_UNKNOWN (exit 7), sent once. test/reliability/
 * failures.test.ts takes each kind of answer through the built CLI for one read command and one
 * once-only command, in text and --json.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createHttpClient } from '../../src/api/client.js';
import { createApi, type Api } from '../../src/api/endpoints.js';
import { nodeFetch } from '../../src/api/transport.js';
import { CliError } from '../../src/errors.js';
import { sendJson, startTestServer, TRIGGERS_BODY } from '../helpers/server.js';

const UUID = '9b2d7c1e-4f3a-4e5b-8c6d-7e8f9a0b1c2d';
const TRIGGER_ID = TRIGGERS_BODY.triggers[0]!.id;
const START = '2030-01-07T10:00:00.000Z';

const BODIES = { empty: '', 'not-json': 'OK', 'wrong-shape': JSON.stringify({ ok: true }) } as const;

const OPERATIONS: Array<{
  name: string;
  method: string;
  path: string;
  status: number;
  once: boolean;
  send: (api: Api) => Promise<unknown>;
}> = [
  {
    name: 'book',
    method: 'POST',
    path: '/v1/scheduling/meetings',
    status: 201,
    once: true,
    send: (api) =>
      api.book({ event: 'intro-call', startTime: START, reservationId: UUID, personEmail: 'lead@acme.example' }),
  },
  {
    name: 'reschedule',
    method: 'PATCH',
    path: `/v1/scheduling/meetings/${UUID}`,
    status: 200,
    once: true,
    send: (api) => api.reschedule(UUID, START),
  },
  {
    name: 'trigger fire',
    method: 'POST',
    path: `/v1/triggers/${TRIGGER_ID}`,
    status: 200,
    once: true,
    send: (api) => api.fireTrigger(TRIGGER_ID, { email: 'lead@acme.example' }),
  },
  {
    name: 'triggers ls',
    method: 'GET',
    path: '/v1/triggers',
    status: 200,
    once: false,
    send: (api) => api.listTriggers(),
  },
  {
    name: 'events show',
    method: 'GET',
    path: '/v1/scheduling/events/intro-call',
    status: 200,
    once: false,
    send: (api) => api.getEvent('intro-call'),
  },
  {
    name: 'slots',
    method: 'POST',
    path: '/v1/scheduling/events/intro-call/slots',
    status: 200,
    once: false,
    send: (api) => api.slots('intro-call', { start: START, end: '2030-01-08T10:00:00.000Z' }),
  },
];

const matrix = OPERATIONS.flatMap((op) =>
  (Object.keys(BODIES) as Array<keyof typeof BODIES>).map((kind) => ({ op, kind, label: `${op.name}: ${kind} 2xx` })),
);

let servers: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});

describe('a 2xx answer that cannot be read', () => {
  it.each(matrix)('$label', async ({ op, kind }) => {
    const s = await startTestServer((req, res) => {
      if (req.method === op.method && req.url === op.path) {
        res.writeHead(op.status, { 'content-type': 'application/json' });
        return void res.end(BODIES[kind]);
      }
      sendJson(res, 404, { error: { code: 'NOT_FOUND', message: `no route ${req.method} ${req.url}` } });
    });
    servers.push(s);
    const api = createApi(
      createHttpClient({
        baseUrl: s.baseUrl,
        apiKey: 'sk_test_unreadable_0123456789',
        timeoutMs: 2000,
        debug: undefined,
        notify: () => undefined,
        clock: { now: () => new Date(), sleep: (ms) => new Promise((r) => setTimeout(r, ms)) },
        fetch: nodeFetch,
        testRetryBaseMs: 10,
      }),
    );
    const error = await op.send(api).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(CliError);
    const e = error as CliError;
    if (op.once) {
      expect({ code: e.code, exit: e.exitCode }).toEqual({ code: 'OUTCOME_UNKNOWN', exit: 7 });
      expect(e.message).toContain(`${op.method} ${op.path} answered HTTP ${op.status}`);
      expect(s.seen.filter((r) => r.method === op.method && r.url === op.path)).toHaveLength(1);
    } else {
      expect({ code: e.code, exit: e.exitCode }).toEqual({ code: 'BAD_RESPONSE', exit: 1 });
      expect(e.message).toContain(`the API's answer to ${op.method} ${op.path} is not valid: HTTP ${op.status} with`);
    }
    expect(e.message).not.toMatch(/\bbug\b/);
  });
});
