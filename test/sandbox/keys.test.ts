/**
 * Key rotation in the sandbox (issue 36, E): `POST /_sandbox/keys` gives a further key of the
 * same sandbox account, with the scopes of the full or the read-only demo key, so a rotation can
 * be tried without an account. And its clock: every answer's Date header follows the sandbox
 * clock that `/_sandbox/clock` moves.
 */
import { describe, expect, it } from 'vitest';
import { expectError, slotsFor, triggerByName, useApi } from './helpers.js';

const api = useApi({}, { reset: true });

describe('POST /_sandbox/keys', () => {
  it("gives a further full key of the same account: its meetings are the account's", async () => {
    const res = await fetch(`${api.sb.baseUrl}/_sandbox/keys`, { method: 'POST', body: '{"scope": "full"}' });
    expect(res.status).toBe(201);
    const { key, scope } = (await res.json()) as { key: string; scope: string };
    expect(scope).toBe('full');
    expect(key).toMatch(/^sk_sandbox_full_[0-9a-f]{32}$/);
    expect(Object.values(api.sb.keys)).not.toContain(key);

    const trigger = await triggerByName(api, 'Inbound demo request');
    const fired = await api.call(
      'POST',
      `/v1/triggers/${trigger.id}`,
      { email: 'rot@acme.com', responses: { company: 'Acme', region: 'emea' } },
      key,
    );
    expect(fired.status).toBe(200);
    const slots = await slotsFor(api, 'intro-call');
    const booked = await api.call(
      'POST',
      '/v1/scheduling/meetings',
      {
        startTime: slots.slots[0],
        reservationId: slots.reservationId,
        event: 'intro-call',
        personEmail: 'rot@acme.com',
      },
      key,
    );
    expect(booked.status).toBe(201);
    const state = await api.state();
    expect(state.meetings.map((m: { id: string }) => m.id)).toEqual([booked.body.id]);
    // The request log names the demo key whose scopes the rotated key has.
    expect(state.requests.at(-1)).toMatchObject({ key: 'full', status: 201 });
  });

  it('gives a read-only key: reads pass, writes are refused with MISSING_SCOPE', async () => {
    const { key, scope } = await api.hook('POST', '/_sandbox/keys', { scope: 'read' });
    expect(scope).toBe('read');
    expect(key).toMatch(/^sk_sandbox_read_[0-9a-f]{32}$/);
    expect((await api.call('GET', '/v1/triggers', undefined, key)).status).toBe(200);
    const trigger = await triggerByName(api, 'Inbound demo request');
    expectError(
      await api.call('POST', `/v1/triggers/${trigger.id}`, { email: 'r@acme.com' }, key),
      403,
      'MISSING_SCOPE',
    );
  });

  it('each call gives another key; a reset forgets them', async () => {
    const a = await api.hook('POST', '/_sandbox/keys', { scope: 'full' });
    const b = await api.hook('POST', '/_sandbox/keys', { scope: 'full' });
    expect(a.key).not.toBe(b.key);
    await api.hook('POST', '/_sandbox/reset');
    expectError(await api.call('GET', '/v1/triggers', undefined, a.key), 401, 'INVALID_API_KEY');
  });

  it.each([{}, { scope: 'revoked' }, { scope: 'full', extra: 1 }, 'nope'])('refuses %j (400)', async (body) => {
    const res = await fetch(`${api.sb.baseUrl}/_sandbox/keys`, {
      method: 'POST',
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    expect(res.status).toBe(400);
  });

  it('counts the rate limit per key', async () => {
    const limited = await (await import('./helpers.js')).start({ rateLimit: 2 });
    try {
      const { key } = await limited.hook('POST', '/_sandbox/keys', { scope: 'full' });
      expect((await limited.call('GET', '/v1/triggers')).status).toBe(200);
      expect((await limited.call('GET', '/v1/triggers')).status).toBe(200);
      expect((await limited.call('GET', '/v1/triggers')).status).toBe(429);
      expect((await limited.call('GET', '/v1/triggers', undefined, key)).status).toBe(200);
    } finally {
      await limited.sb.close();
    }
  });
});

describe('the Date header follows the sandbox clock', () => {
  it('moves with /_sandbox/clock, on /v1 answers, errors and hooks alike', async () => {
    const before = await api.call('GET', '/v1/triggers');
    const date = Date.parse(before.headers.get('date') ?? '');
    expect(Math.abs(date - Date.now())).toBeLessThan(5000);
    await api.hook('POST', '/_sandbox/clock', { advanceSeconds: 2 * 86_400 });
    const after = await api.call('GET', '/v1/triggers');
    expect(Date.parse(after.headers.get('date') ?? '') - date).toBeGreaterThan(2 * 86_400_000 - 5000);
    const refused = await api.call('GET', '/v1/triggers', undefined, 'sk_nope');
    expect(
      Math.abs(Date.parse(refused.headers.get('date') ?? '') - Date.parse(after.headers.get('date') ?? '')),
    ).toBeLessThan(5000);
    const { now } = await api.hook('GET', '/_sandbox/clock');
    expect(Math.abs(Date.parse(now) - Date.parse(after.headers.get('date') ?? ''))).toBeLessThan(5000);
  });
});
