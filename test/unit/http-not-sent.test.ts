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

/**
 * Issue 52 finding 9: a booking whose connection fails before its bytes are written (here the
 * server resets the first connection while the send hook still writes the journal's mark) is
 * "nothing was sent" and tried once more on a new connection, never outcome unknown.
 */
describe('a booking whose connection is reset before the request is written', () => {
  it('is tried once more on a new connection (the journal marked once), which books', async () => {
    const { createServer } = await import('node:net');
    const { nodeFetch } = await import('../../src/api/transport.js');
    const { withSendHook } = await import('../../src/api/send-hook.js');
    let accepted = 0;
    const bytes: number[] = [];
    let markSaved = false;
    const markSavedAtArrival: boolean[] = [];
    const server = createServer((socket) => {
      const n = accepted++;
      bytes[n] = 0;
      socket.on('error', () => undefined);
      socket.on('data', (d) => {
        if (bytes[n] === 0) markSavedAtArrival.push(markSaved);
        bytes[n]! += d.length;
        if (n > 0 && d.includes('\r\n\r\n'))
          socket.end('HTTP/1.1 201 Created\r\ncontent-type: application/json\r\ncontent-length: 11\r\n\r\n{"id":"m1"}');
      });
      if (n === 0) setTimeout(() => socket.resetAndDestroy(), 20);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as import('node:net').AddressInfo).port;
    try {
      const client = createHttpClient({
        baseUrl: `http://127.0.0.1:${port}`,
        apiKey: 'sk_test_not_sent_0123456789',
        timeoutMs: 5000,
        debug: undefined,
        notify: () => undefined,
        clock: { now: () => new Date(), sleep: async () => undefined },
        testRetryBaseMs: 1,
        fetch: nodeFetch,
      });
      let hooks = 0;
      const answer = await withSendHook(
        async () => {
          hooks++;
          await new Promise((r) => setTimeout(r, 200)); // the journal's mark, slower than the reset
          markSaved = true;
        },
        () => client.request({ method: 'POST', path: '/v1/scheduling/meetings', body: {}, safety: 'once' }),
      );
      expect(answer).toEqual({ id: 'm1' });
      expect(markSavedAtArrival, 'the retry left only once the mark was saved').toEqual([true]);
      expect(accepted).toBe(2);
      expect(bytes[0], 'no byte of the first try reached the server').toBe(0);
      expect(hooks, 'the journal is marked once').toBe(1);
      expect(client.sent, 'the try that never wrote is not counted as sent').toBe(1);
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
