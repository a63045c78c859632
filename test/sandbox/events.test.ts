/** Events list, event detail and slots (with a frozen sandbox clock, so the seed is fixed). */
import { describe, expect, it } from 'vitest';
import { strictSchemas } from '../../src/api/schemas.js';
import { seedWorkspace } from '../../src/sandbox/workspace.js';
import { DAY, expectError, iso, slotsFor, useApi } from './helpers.js';

const NOW = new Date('2026-11-23T00:00:00Z'); // a Monday
const api = useApi({ now: () => NOW });

const slots = (event: string, body: unknown) => api.call('POST', `/v1/scheduling/events/${event}/slots`, body);

describe('events list', () => {
  it('pages newest first with an opaque cursor and an empty last cursor', async () => {
    const first = strictSchemas.eventsList.parse((await api.call('GET', '/v1/scheduling/events')).body);
    expect(first.events).toHaveLength(5);
    expect(first.nextCursor).not.toBe('');
    const second = strictSchemas.eventsList.parse(
      (await api.call('GET', `/v1/scheduling/events?cursor=${first.nextCursor}`)).body,
    );
    expect(second.nextCursor).toBe('');
    const all = [...first.events, ...second.events];
    expect(all.length).toBeGreaterThanOrEqual(6);
    expect(all.map((e) => e.createdAt)).toEqual([...all.map((e) => e.createdAt)].sort().reverse());
    const big = strictSchemas.eventsList.parse((await api.call('GET', '/v1/scheduling/events?limit=50')).body);
    expect(big.events.map((e) => e.id)).toEqual(all.map((e) => e.id));
    expect(new Set(all.map((e) => e.duration)).size).toBeGreaterThanOrEqual(3);
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=51', 'limit'],
    ['limit=abc', 'limit'],
    ['cursor=bogus', 'cursor'],
  ])('rejects %s with 400 INVALID_REQUEST naming %s', async (query, field) => {
    const error = expectError(await api.call('GET', `/v1/scheduling/events?${query}`), 400, 'INVALID_REQUEST');
    expect(error.details?.[0]).toMatch(new RegExp(`^${field}: `));
  });
});

describe('event detail', () => {
  it('resolves ids and slugs, and a link slug wins over an event slug', async () => {
    const list = strictSchemas.eventsList.parse((await api.call('GET', '/v1/scheduling/events?limit=50')).body);
    const onboarding = list.events.find((e) => e.slug === 'onboarding')!;
    const byId = strictSchemas.eventDetail.parse(
      (await api.call('GET', `/v1/scheduling/events/${onboarding.id}`)).body,
    );
    expect(byId.hosts.map((h) => h.name)).toEqual(['Ben Carter', 'Diego Ramos']);
    const bySlug = strictSchemas.eventDetail.parse((await api.call('GET', '/v1/scheduling/events/onboarding')).body);
    expect(bySlug.hosts.map((h) => h.name)).toEqual(['Diego Ramos']);
    expect(bySlug.id).toBe(onboarding.id);
    const demo = strictSchemas.eventDetail.parse((await api.call('GET', '/v1/scheduling/events/product-demo')).body);
    expect(demo.questions.some((q) => q.type === 'email' && q.requireWorkEmail)).toBe(true);
  });

  it('answers 404 NOT_FOUND for an unknown event', async () => {
    expectError(await api.call('GET', '/v1/scheduling/events/nope'), 404, 'NOT_FOUND');
  });
});

describe('slots', () => {
  it('uses the link hosts for a colliding link slug', async () => {
    const viaLink = await slotsFor(api, 'onboarding');
    expect(viaLink.activeHost).toMatchObject({ name: 'Diego Ramos' });
    const state = await api.state();
    expect(state.reservations.at(-1)).toMatchObject({
      id: viaLink.reservationId,
      event: 'onboarding',
      hostIds: [expect.any(String)],
    });
  });

  it('never offers a seeded busy block, and offers only future grid times', async () => {
    const ws = seedWorkspace(1, NOW);
    const diego = ws.hosts.find((h) => h.name === 'Diego Ramos')!;
    const result = await slotsFor(api, 'support-escalation', 14);
    expect(result.activeHost).toBeNull();
    expect(result.slots.length).toBeGreaterThan(0);
    for (const s of result.slots) {
      const start = Date.parse(s);
      expect(start).toBeGreaterThan(NOW.getTime());
      for (const b of diego.busy)
        expect(start < Date.parse(b.end) && Date.parse(b.start) < start + 20 * 60_000).toBe(false);
    }
    // The busy block's own start is a grid time; without the block it would be offered.
    expect(result.slots).not.toContain(diego.busy[0]!.start.replace(/\.\d+Z$/, '.000Z'));
  });

  it('pages further ranges with the same reservation and host selection', async () => {
    const now = NOW.getTime();
    const first = await slotsFor(api, 'sales-emea');
    const again = await slots('sales-emea', {
      start: iso(now + 7 * DAY),
      end: iso(now + 14 * DAY),
      reservationId: first.reservationId,
    });
    const second = strictSchemas.slotsResult.parse(again.body);
    expect(second.reservationId).toBe(first.reservationId);
    expect(second.expiresAt).toBe(first.expiresAt);
    expect(second.slots.every((s) => Date.parse(s) >= now + 7 * DAY && Date.parse(s) < now + 14 * DAY)).toBe(true);
    expect(second.slots.length).toBeGreaterThan(0);
  });

  it('accepts 63 days and refuses one millisecond more, naming end', async () => {
    const now = NOW.getTime();
    expect((await slots('intro-call', { start: iso(now), end: iso(now + 63 * DAY) })).status).toBe(200);
    const error = expectError(
      await slots('intro-call', { start: iso(now), end: iso(now + 63 * DAY + 1) }),
      400,
      'INVALID_REQUEST',
    );
    expect(error.details?.[0]).toMatch(/^end: /);
    expect(
      expectError(await slots('intro-call', { start: iso(now), end: iso(now) }), 400, 'INVALID_REQUEST').details,
    ).toEqual(['end: must be after start']);
    expect(expectError(await slots('intro-call', { end: 'soon' }), 400, 'INVALID_REQUEST').details?.[0]).toMatch(
      /^start: /,
    );
  });

  it('answers 404 for an unknown reservation or event and RESERVATION_MISMATCH for a foreign reservation', async () => {
    const now = NOW.getTime();
    const range = { start: iso(now), end: iso(now + DAY) };
    expectError(
      await slots('intro-call', { ...range, reservationId: '3f1c2a9e-1111-4222-8333-444455556666' }),
      404,
      'NOT_FOUND',
    );
    const own = await slotsFor(api, 'sales-emea', 1);
    expectError(
      await slots('sales-americas', { ...range, reservationId: own.reservationId }),
      400,
      'RESERVATION_MISMATCH',
    );
    expectError(
      await slots('product-demo', { ...range, reservationId: own.reservationId }),
      400,
      'RESERVATION_MISMATCH',
    );
    expectError(await slots('nope', range), 404, 'NOT_FOUND');
  });
});

describe('slots with a minimum notice (slotNoticeSeconds)', () => {
  const AT = new Date('2026-11-23T10:00:30Z'); // a Monday, in working hours
  const NOTICE = 3600;
  const plain = useApi({ now: () => AT, slotNoticeSeconds: 0 });
  const noticed = useApi({ now: () => AT, slotNoticeSeconds: NOTICE });

  it('offers only starts after the notice, and still books a future start inside it', async () => {
    const soonest = (await slotsFor(plain, 'intro-call', 2)).slots[0]!;
    expect(Date.parse(soonest)).toBeGreaterThan(AT.getTime());
    expect(Date.parse(soonest)).toBeLessThanOrEqual(AT.getTime() + NOTICE * 1000);
    const offered = await slotsFor(noticed, 'intro-call', 2);
    expect(offered.slots.length).toBeGreaterThan(0);
    expect(offered.slots.every((s) => Date.parse(s) > AT.getTime() + NOTICE * 1000)).toBe(true);
    const booked = await noticed.call('POST', '/v1/scheduling/meetings', {
      event: 'intro-call',
      reservationId: offered.reservationId,
      startTime: soonest,
      personEmail: 'notice@acme.com',
    });
    expect(booked.status, JSON.stringify(booked.body)).toBe(201);
  });
});
