/** Auth, scopes, routing and body parsing, common to every operation. */
import { describe, expect, it } from 'vitest';
import { expectError, useApi } from './helpers.js';

const api = useApi();

describe('authentication', () => {
  it.each([
    ['missing', null],
    ['unknown', 'sk_sandbox_full_0000000000000000'],
  ])('rejects a %s key with 401 INVALID_API_KEY', async (_, key) => {
    expectError(await api.call('GET', '/v1/triggers', undefined, key), 401, 'INVALID_API_KEY');
  });

  it('rejects a malformed Authorization header and a revoked key', async () => {
    const res = await fetch(`${api.sb.baseUrl}/v1/triggers`, {
      headers: { authorization: `Token ${api.sb.keys.full}` },
    });
    expectError({ status: res.status, body: await res.json(), headers: res.headers }, 401, 'INVALID_API_KEY');
    const revoked = expectError(
      await api.call('GET', '/v1/scheduling/events', undefined, api.sb.keys.revoked),
      401,
      'INVALID_API_KEY',
    );
    expect(revoked.message).toMatch(/revoked/);
  });

  it('checks the key before the route exists or the body parses', async () => {
    expectError(await api.call('GET', '/v1/nope', undefined, null), 401, 'INVALID_API_KEY');
    expectError(await api.call('POST', '/v1/scheduling/meetings', '{not json', null), 401, 'INVALID_API_KEY');
  });

  it('gives keys deterministic sk_ names per seed', () => {
    expect(api.sb.keys.full).toMatch(/^sk_sandbox_full_[0-9a-f]{16}$/);
    expect(api.sb.keys.readOnly).toMatch(/^sk_sandbox_read_[0-9a-f]{16}$/);
    expect(api.sb.keys.revoked).toMatch(/^sk_sandbox_revoked_[0-9a-f]{16}$/);
    // Each key ends its own way: masked (`sk_…407c`), no two read the same.
    const tails = [api.sb.keys.full, api.sb.keys.readOnly, api.sb.keys.revoked].map((k) => k.slice(-4));
    expect(new Set(tails).size).toBe(3);
  });
});

describe('scopes', () => {
  it('lets the read-only key read', async () => {
    const ro = api.sb.keys.readOnly;
    expect((await api.call('GET', '/v1/triggers', undefined, ro)).status).toBe(200);
    expect((await api.call('GET', '/v1/scheduling/events', undefined, ro)).status).toBe(200);
    expect((await api.call('GET', '/v1/scheduling/events/intro-call', undefined, ro)).status).toBe(200);
    const now = Date.now();
    const slots = await api.call(
      'POST',
      '/v1/scheduling/events/intro-call/slots',
      { start: new Date(now).toISOString(), end: new Date(now + 864e5).toISOString() },
      ro,
    );
    expect(slots.status).toBe(200);
  });

  it.each([
    ['POST', '/v1/triggers/00000000-0000-4000-8000-000000000000', 'triggers:write'],
    ['POST', '/v1/scheduling/meetings', 'scheduling:write'],
    ['PATCH', '/v1/scheduling/meetings/00000000-0000-4000-8000-000000000000', 'scheduling:write'],
  ])('answers 403 MISSING_SCOPE naming the scope for %s %s', async (method, path, scope) => {
    const error = expectError(await api.call(method, path, {}, api.sb.keys.readOnly), 403, 'MISSING_SCOPE');
    expect(error.message).toContain(scope);
  });
});

describe('routing and bodies', () => {
  it('answers unknown routes and wrong methods with 404 NOT_FOUND', async () => {
    expectError(await api.call('GET', '/v1/nope'), 404, 'NOT_FOUND');
    expectError(await api.call('DELETE', '/v1/triggers'), 404, 'NOT_FOUND');
    expectError(await api.call('GET', '/v2/triggers'), 404, 'NOT_FOUND');
  });

  it('answers a malformed JSON body with 400 INVALID_REQUEST', async () => {
    const error = expectError(
      await api.call('POST', '/v1/scheduling/meetings', '{"startTime":'),
      400,
      'INVALID_REQUEST',
    );
    expect(error.details).toEqual(['(body): malformed JSON']);
  });

  it('never sends CORS headers, even to a preflight', async () => {
    const res = await fetch(`${api.sb.baseUrl}/v1/triggers`, {
      method: 'OPTIONS',
      headers: { origin: 'https://x.example' },
    });
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    expect(res.status).toBe(401);
  });

  it('logs every /v1 request with its key and status', async () => {
    await api.hook('POST', '/_sandbox/reset');
    await api.call('GET', '/v1/triggers');
    await api.call('GET', '/v1/triggers', undefined, api.sb.keys.revoked);
    await api.call('GET', '/v1/triggers', undefined, null);
    expect((await api.state()).requests).toEqual([
      { method: 'GET', path: '/v1/triggers', status: 200, key: 'full' },
      { method: 'GET', path: '/v1/triggers', status: 401, key: 'revoked' },
      { method: 'GET', path: '/v1/triggers', status: 401, key: null },
    ]);
  });
});
