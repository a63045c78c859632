/**
 * Every error code of the spec, answered in the API's envelope, read by the HTTP client the CLI
 * builds (its own transport): the exit code of the table in src/errors.ts (a public contract,
 * docs/exit-codes-and-errors.md) and the `--json` error document. test/e2e/http-layer.test.ts
 * takes one code of each exit code through the built CLI, in text and in `--json`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createHttpClient } from '../../src/api/client.js';
import { nodeFetch } from '../../src/api/transport.js';
import { ApiError } from '../../src/errors.js';
import { sendJson, startTestServer } from '../helpers/server.js';

const API_ERROR_EXITS: Array<[code: string, status: number, exit: number]> = [
  ['INVALID_REQUEST', 400, 2],
  ['RESERVATION_MISMATCH', 400, 2],
  ['WORK_EMAIL_REQUIRED', 400, 2],
  ['INVALID_API_KEY', 401, 3],
  ['MISSING_SCOPE', 403, 3],
  ['NOT_FOUND', 404, 4],
  ['RESERVATION_EXPIRED', 409, 5],
  ['RESERVATION_USED', 409, 5],
  ['SLOT_TAKEN', 409, 5],
  ['NO_HOST_AVAILABLE', 409, 5],
  ['CONFLICT', 409, 5],
  ['INTERNAL_ERROR', 500, 1],
  // A code the spec does not name: the HTTP status decides.
  ['SOMETHING_NEW', 409, 5],
  ['SOMETHING_ELSE', 422, 2],
];

let servers: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});

describe('an API error answer', () => {
  it.each(API_ERROR_EXITS)(
    '%s (HTTP %i) is exit %i, with the envelope in the error document',
    async (code, status, exit) => {
      const s = await startTestServer((_req, res) =>
        sendJson(res, status, { error: { code, message: `the ${code} message`, details: ['field: reason'] } }),
      );
      servers.push(s);
      const client = createHttpClient({
        baseUrl: s.baseUrl,
        apiKey: 'sk_test_api_error_exits_0123456789',
        timeoutMs: 2000,
        debug: undefined,
        notify: () => undefined,
        clock: { now: () => new Date(), sleep: (ms) => new Promise((r) => setTimeout(r, ms)) },
        fetch: nodeFetch,
        testRetryBaseMs: 10,
      });
      const error = await client.request({ method: 'GET', path: '/v1/triggers', safety: 'retry' }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ApiError);
      const e = error as ApiError;
      expect(e.exitCode).toBe(exit);
      expect(e.toDocument()).toEqual({
        error: { code, message: `the ${code} message`, details: ['field: reason'], status },
      });
    },
  );
});
