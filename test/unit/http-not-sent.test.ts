/**
 * "Never exit 7 for a request that did not leave" (issue 25): a request the HTTP layer cannot
 * even build (here a URL with user:password@, which fetch's Request refuses) never reached the
 * transport, so even a booking's failure is "nothing was sent", not outcome unknown.
 */
import { describe, expect, it } from 'vitest';
import { createHttpClient } from '../../src/api/client.js';
import { CliError } from '../../src/errors.js';

describe('a request that never reached the transport', () => {
  it('is REQUEST_NOT_SENT (exit 1) for a booking, not outcome unknown, and nothing is fetched', async () => {
    let fetched = 0;
    const client = createHttpClient({
      // Bypassing the base URL's own check (config/target.ts), as a future path might.
      baseUrl: 'http://alice:pw@127.0.0.1:9',
      apiKey: 'sk_test_not_sent_0123456789',
      timeoutMs: 1000,
      debug: undefined,
      notify: () => undefined,
      clock: { now: () => new Date(), sleep: async () => undefined },
      fetch: async () => {
        fetched++;
        throw new Error('must not be called');
      },
    });
    const error = await client
      .request({ method: 'POST', path: '/v1/scheduling/meetings', body: {}, safety: 'once' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CliError);
    expect(error).toMatchObject({ code: 'REQUEST_NOT_SENT', exitCode: 1 });
    expect((error as Error).message).toContain('http://***@127.0.0.1:9');
    expect((error as Error).message).toContain('nothing was sent');
    expect((error as Error).message).not.toContain('pw');
    expect(fetched).toBe(0);
  });
});
