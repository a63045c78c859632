/** Every fault of /_sandbox/faults, checked against what the server really did. */
import { describe, expect, it } from 'vitest';
import { expectError, slotsFor, useApi } from './helpers.js';

const api = useApi({}, { reset: true });

const MEETINGS = '/v1/scheduling/meetings';
const EMAIL = 'lead@acme.com';

async function bookRequest() {
  const s = await slotsFor(api, 'intro-call');
  return { startTime: s.slots[0], reservationId: s.reservationId, event: 'intro-call', personEmail: EMAIL };
}

const rawFetch = (path: string, body: unknown, timeoutMs?: number) =>
  fetch(api.sb.baseUrl + path, {
    method: 'POST',
    headers: { authorization: `Bearer ${api.sb.keys.full}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    ...(timeoutMs ? { signal: AbortSignal.timeout(timeoutMs) } : {}),
  });

describe('faults', () => {
  it('drop-after-commit books, then closes the socket without an answer', async () => {
    await api.hook('POST', '/_sandbox/faults', { method: 'POST', path: MEETINGS, fault: 'drop-after-commit' });
    const body = await bookRequest();
    await expect(rawFetch(MEETINGS, body, 2000)).rejects.toThrow();
    const state = await api.state();
    expect(state.meetings).toHaveLength(1);
    expect(state.requests.at(-1)).toMatchObject({ path: MEETINGS, status: 201, fault: 'drop-after-commit' });
    expectError(await api.call('POST', MEETINGS, body), 409, 'RESERVATION_USED');
  });

  it('stall-after-commit books and never answers until the client gives up', async () => {
    await api.hook('POST', '/_sandbox/faults', { path: MEETINGS, fault: 'stall-after-commit' });
    const body = await bookRequest();
    await expect(rawFetch(MEETINGS, body, 300)).rejects.toThrow(/timeout|abort/i);
    expect((await api.state()).meetings).toHaveLength(1);
  });

  it('status answers the given status and code without doing the work', async () => {
    await api.hook('POST', '/_sandbox/faults', { path: MEETINGS, fault: 'status', count: 2 });
    await api.hook('POST', '/_sandbox/faults', {
      path: MEETINGS,
      fault: 'status',
      status: 429,
      code: 'RATE_LIMITED',
      retryAfter: 7,
    });
    const body = await bookRequest();
    expectError(await api.call('POST', MEETINGS, body), 500, 'INTERNAL_ERROR');
    expectError(await api.call('POST', MEETINGS, body), 500, 'INTERNAL_ERROR');
    const limited = await api.call('POST', MEETINGS, body);
    expectError(limited, 429, 'RATE_LIMITED');
    expect(limited.headers.get('retry-after')).toBe('7');
    expect((await api.state()).meetings).toHaveLength(0);
    expect((await api.call('POST', MEETINGS, body)).status).toBe(201);
  });

  it('html answers a 502 page without doing the work', async () => {
    await api.hook('POST', '/_sandbox/faults', { path: '/v1/triggers/*', fault: 'html' });
    const trigger = (await api.call('GET', '/v1/triggers')).body.triggers[2];
    const res = await api.call('POST', `/v1/triggers/${trigger.id}`, { email: EMAIL });
    expect(res.status).toBe(502);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.body).toContain('502 Bad Gateway');
    expect((await api.state()).executions).toHaveLength(0);
  });

  it('truncate books and answers a cut-off JSON body', async () => {
    await api.hook('POST', '/_sandbox/faults', { method: 'post', path: MEETINGS, fault: 'truncate' });
    const res = await rawFetch(MEETINGS, await bookRequest());
    expect(res.status).toBe(201);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const text = await res.text();
    expect(() => JSON.parse(text)).toThrow();
    expect((await api.state()).meetings).toHaveLength(1);
  });

  it('delay waits, then does the work even after the client has gone', async () => {
    await api.hook('POST', '/_sandbox/faults', { path: MEETINGS, fault: 'delay', delayMs: 300 });
    await expect(rawFetch(MEETINGS, await bookRequest(), 100)).rejects.toThrow();
    expect((await api.state()).meetings).toHaveLength(0);
    await new Promise((r) => setTimeout(r, 400));
    expect((await api.state()).meetings).toHaveLength(1);
    await api.hook('POST', '/_sandbox/faults', { fault: 'delay', delayMs: 50 });
    expect((await api.call('GET', '/v1/triggers')).status).toBe(200);
  });

  it('lists, consumes and clears rules, and validates them', async () => {
    await api.hook('POST', '/_sandbox/faults', { path: '/v1/triggers', fault: 'status', count: 3 });
    await api.call('GET', '/v1/triggers');
    expect((await api.hook('GET', '/_sandbox/faults')).faults).toMatchObject([
      { path: '/v1/triggers', fault: 'status', remaining: 2 },
    ]);
    expect((await api.hook('DELETE', '/_sandbox/faults')).faults).toEqual([]);
    expect((await api.call('GET', '/v1/triggers')).status).toBe(200);
    const bad = await fetch(`${api.sb.baseUrl}/_sandbox/faults`, {
      method: 'POST',
      body: JSON.stringify({ fault: 'explode' }),
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as any).error.details[0]).toMatch(/^fault: /);
  });
});
