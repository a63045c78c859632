/**
 * The HTTP layer against hostile and broken servers, every misbehaviour for a read (retried,
 * exit 1) and for a once-only request (a booking, a fire: never repeated, exit 7 whenever it may
 * have been processed): the client the CLI builds (schedctl's own transport, the endpoints'
 * schemas), in this process. test/reliability/hostile.test.ts takes each misbehaviour through the
 * built CLI for some read command and some once-only command, and each command through some of
 * them (the wiring); this file holds the whole matrix.
 */
import { describe, expect, it } from 'vitest';
import { createHttpClient } from '../../src/api/client.js';
import { createApi } from '../../src/api/endpoints.js';
import { nodeFetch } from '../../src/api/transport.js';
import { CliError } from '../../src/errors.js';
import { HOSTILE_KINDS, hostileExpectation, startHostileServer, type Hostility } from '../helpers/hostile-server.js';

const KEY = 'sk_test_hostile_unit_0f1e2d3c4b5a';
const UUID = '9b2d7c1e-4f3a-4e5b-8c6d-7e8f9a0b1c2d';

/** What the CLI passes for `--timeout 1` / `--timeout 2` (hostile.test.ts's choice per misbehaviour). */
const timeoutMsFor = (kind: Hostility) => (kind === 'never-answers' ? 1000 : 2000);

function client(baseUrl: string, kind: Hostility) {
  return createApi(
    createHttpClient({
      baseUrl,
      apiKey: KEY,
      timeoutMs: timeoutMsFor(kind),
      debug: undefined,
      notify: () => undefined,
      clock: { now: () => new Date(), sleep: (ms) => new Promise((r) => setTimeout(r, ms)) },
      fetch: nodeFetch,
      // What the e2e tests set (SCHEDCTL_TEST_RETRY_BASE_MS): what is retried is under test, not the pause.
      testRetryBaseMs: 10,
    }),
  );
}

const REQUESTS = [
  {
    name: 'a read (GET /v1/triggers)',
    once: false,
    target: 'GET /v1/triggers',
    send: (api: ReturnType<typeof client>) => api.listTriggers(),
  },
  {
    name: 'a booking (POST /v1/scheduling/meetings)',
    once: true,
    target: 'POST /v1/scheduling/meetings',
    send: (api: ReturnType<typeof client>) =>
      api.book({
        event: 'intro-call',
        startTime: '2030-01-07T10:00:00.000Z',
        reservationId: UUID,
        personEmail: 'lead@acme.example',
      }),
  },
] as const;

const matrix = REQUESTS.flatMap((req) => HOSTILE_KINDS.map((kind) => ({ req, kind, label: `${req.name}: ${kind}` })));

describe.concurrent('a hostile server: the documented error and exit code, bounded retries, the key kept home', () => {
  it.each(matrix)(
    '$label',
    async ({ req, kind }) => {
      const s = await startHostileServer(kind, req.target);
      try {
        const error = await req.send(client(s.baseUrl, kind)).then(
          () => undefined,
          (e: unknown) => e,
        );
        const want = hostileExpectation(kind, req.once);
        expect(error).toBeInstanceOf(CliError);
        const e = error as CliError;
        expect({ code: e.code, exit: e.exitCode }).toEqual({ code: want.code, exit: want.exit });
        expect(e.message).toMatch(want.message);

        const hits = s.targetHits();
        expect(hits.length).toBeGreaterThanOrEqual(1);
        // A booking is never repeated once it may have reached the server (a 429 is the exception: it did not act).
        if (req.once && !kind.startsWith('retry-after')) expect(hits).toHaveLength(1);
        if (kind === 'retry-after-huge') expect(hits).toHaveLength(1);
        for (const seen of s.seen) expect(seen.headers.authorization).toBe(`Bearer ${KEY}`);
        expect(s.otherSeen, 'a redirect must not be followed to another origin').toEqual([]);
      } finally {
        await s.close();
      }
    },
    40_000,
  );
});
