/** What a transport failure says is counted from the request's tries (failures.ts), not from its last error alone. */
import { describe, expect, it } from 'vitest';
import { describeTries, transportError } from '../../src/api/failures.js';
import { NetworkError } from '../../src/errors.js';

const refused = () =>
  new TypeError('fetch failed', { cause: Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }) });
const reset = { sent: true, outcome: 'ECONNRESET' };
const notConnected = { sent: false, outcome: 'ECONNREFUSED' };

describe('describeTries', () => {
  it('groups consecutive alike tries and says which were sent', () => {
    expect(describeTries([reset, notConnected, notConnected, notConnected])).toBe(
      '4 tries: try 1 sent, then ECONNRESET; tries 2-4 not connected (ECONNREFUSED)',
    );
    expect(describeTries([{ sent: true, outcome: 'HTTP 503' }])).toBe('1 try: try 1 sent, then HTTP 503');
    expect(describeTries([notConnected, reset, notConnected])).toBe(
      '3 tries: try 1 not connected (ECONNREFUSED); try 2 sent, then ECONNRESET; try 3 not connected (ECONNREFUSED)',
    );
  });
});

describe('transportError counts from the tries', () => {
  it('says "nothing was sent" only when no try connected', () => {
    const none = transportError(refused(), 'GET /v1/triggers', false, 30_000, [notConnected, notConnected]);
    expect(none).toBeInstanceOf(NetworkError);
    expect(none.message).toBe(
      'could not reach the API for GET /v1/triggers (ECONNREFUSED); nothing was sent (2 tries, none connected)',
    );
    const one = transportError(refused(), 'GET /v1/triggers', false, 30_000, [notConnected]);
    expect(one.message).toBe('could not reach the API for GET /v1/triggers (ECONNREFUSED); nothing was sent');
  });

  it('never says "nothing was sent" after a try that was sent and reset', () => {
    const e = transportError(refused(), 'GET /v1/triggers', false, 30_000, [reset, notConnected]);
    expect(e.message).toBe(
      'could not reach the API for GET /v1/triggers (ECONNREFUSED) on its last try, after an earlier try was sent (2 tries: try 1 sent, then ECONNRESET; try 2 not connected (ECONNREFUSED))',
    );
  });

  it('adds the tries to a connection failed after it was up', () => {
    const dropped = new TypeError('fetch failed', { cause: Object.assign(new Error('reset'), { code: 'ECONNRESET' }) });
    const e = transportError(dropped, 'GET /v1/triggers', false, 30_000, [reset, reset]);
    expect(e.message).toBe(
      'GET /v1/triggers: the connection failed (ECONNRESET) (2 tries: tries 1-2 sent, then ECONNRESET)',
    );
  });
});
