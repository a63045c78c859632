/** Book and reschedule: every error code, lost-response retries, expiry and concurrency. */
import { describe, expect, it } from 'vitest';
import { strictSchemas } from '../../src/api/schemas.js';
import { expectError, slotsFor, triggerByName, useApi } from './helpers.js';

const api = useApi({}, { reset: true });

const EMAIL = 'lead@acme.com';
const book = (
  event: string,
  reservationId: string,
  startTime: string | undefined,
  extra: Record<string, unknown> = {},
) => api.call('POST', '/v1/scheduling/meetings', { startTime, reservationId, event, personEmail: EMAIL, ...extra });

async function fireDemo(region = 'emea') {
  const trigger = await triggerByName(api, 'Inbound demo request');
  const res = await api.call('POST', `/v1/triggers/${trigger.id}`, {
    email: EMAIL,
    responses: { company: 'Acme', region },
  });
  return { executionId: res.body.executionId as string, linkId: res.body.outcome.schedulingLinkId as string };
}

describe('book errors', () => {
  it('validates the body, with at most 10 guestEmails', async () => {
    const s = await slotsFor(api, 'sales-emea');
    const guests = Array.from({ length: 11 }, (_, i) => `g${i}@acme.com`);
    const error = expectError(
      await book('sales-emea', s.reservationId, s.slots[0], { guestEmails: guests }),
      400,
      'INVALID_REQUEST',
    );
    expect(error.details?.[0]).toMatch(/^guestEmails: /);
    const missing = expectError(await api.call('POST', '/v1/scheduling/meetings', {}), 400, 'INVALID_REQUEST');
    expect(missing.details?.map((d) => d.split(':')[0])).toEqual([
      'startTime',
      'reservationId',
      'event',
      'personEmail',
    ]);
  });

  it('answers 404 for an unknown event, reservation or workflow execution', async () => {
    const s = await slotsFor(api, 'sales-emea');
    expectError(await book('nope', s.reservationId, s.slots[0]), 404, 'NOT_FOUND');
    expectError(await book('sales-emea', '3f1c2a9e-1111-4222-8333-444455556666', s.slots[0]), 404, 'NOT_FOUND');
    expectError(
      await book('sales-emea', s.reservationId, s.slots[0], {
        workflowExecutionId: '3f1c2a9e-1111-4222-8333-444455556666',
      }),
      404,
      'NOT_FOUND',
    );
  });

  it('answers RESERVATION_MISMATCH for a reservation of another event or link', async () => {
    const s = await slotsFor(api, 'sales-emea');
    expectError(await book('product-demo', s.reservationId, s.slots[0]), 400, 'RESERVATION_MISMATCH');
  });

  it('requires a work email for the demo event and its links', async () => {
    const s = await slotsFor(api, 'sales-emea');
    expectError(
      await book('sales-emea', s.reservationId, s.slots[0], { personEmail: 'me@gmail.com' }),
      400,
      'WORK_EMAIL_REQUIRED',
    );
  });

  it('rejects a personEmail that differs from the fired email', async () => {
    const { executionId, linkId } = await fireDemo();
    const s = await slotsFor(api, linkId);
    const error = expectError(
      await book(linkId, s.reservationId, s.slots[0], {
        workflowExecutionId: executionId,
        personEmail: 'other@acme.com',
      }),
      400,
      'INVALID_REQUEST',
    );
    expect(error.details?.[0]).toMatch(/^personEmail: /);
  });

  it('answers NO_HOST_AVAILABLE off the grid and SLOT_TAKEN when the host got booked, keeping the reservation usable', async () => {
    const a = await slotsFor(api, 'sales-emea');
    const b = await slotsFor(api, 'sales-emea');
    const offGrid = new Date(Date.parse(a.slots[0]!) + 10 * 60_000).toISOString();
    expectError(await book('sales-emea', a.reservationId, offGrid), 409, 'NO_HOST_AVAILABLE');
    expect((await book('sales-emea', a.reservationId, a.slots[0])).status).toBe(201);
    expectError(await book('sales-emea', b.reservationId, a.slots[0]), 409, 'SLOT_TAKEN');
    const fresh = await slotsFor(api, 'sales-emea', 7, b.reservationId);
    expect(fresh.slots).not.toContain(a.slots[0]);
    expect((await book('sales-emea', b.reservationId, fresh.slots[0])).status).toBe(201);
  });

  it('answers RESERVATION_USED to a retry and never books twice', async () => {
    const s = await slotsFor(api, 'intro-call');
    const first = await book('intro-call', s.reservationId, s.slots[0]);
    expect(first.status).toBe(201);
    strictSchemas.meeting.parse(first.body);
    expectError(await book('intro-call', s.reservationId, s.slots[0]), 409, 'RESERVATION_USED');
    expectError(
      await api.call('POST', '/v1/scheduling/events/intro-call/slots', {
        start: new Date().toISOString(),
        end: new Date(Date.now() + 86_400_000).toISOString(),
        reservationId: s.reservationId,
      }),
      409,
      'RESERVATION_USED',
    );
    expect((await api.state()).meetings).toHaveLength(1);
  });

  it('answers RESERVATION_EXPIRED once the clock passes expiresAt', async () => {
    const s = await slotsFor(api, 'intro-call');
    await api.hook('POST', '/_sandbox/clock', { advanceSeconds: 601 });
    const error = expectError(await book('intro-call', s.reservationId, s.slots.at(-1)), 409, 'RESERVATION_EXPIRED');
    expect(error.message).toMatch(/without a reservationId/);
    expect((await api.state()).reservations[0].status).toBe('expired');
    expectError(
      await api.call('POST', '/v1/scheduling/events/intro-call/slots', {
        start: new Date().toISOString(),
        end: new Date(Date.now() + 86_400_000).toISOString(),
        reservationId: s.reservationId,
      }),
      409,
      'RESERVATION_EXPIRED',
    );
  });

  it('answers CONFLICT when the execution already booked, also to a lost-response retry', async () => {
    const { executionId, linkId } = await fireDemo();
    const s = await slotsFor(api, linkId);
    const body = { workflowExecutionId: executionId };
    expect((await book(linkId, s.reservationId, s.slots[0], body)).status).toBe(201);
    expectError(await book(linkId, s.reservationId, s.slots[0], body), 409, 'CONFLICT');
    const other = await slotsFor(api, linkId);
    expectError(await book(linkId, other.reservationId, other.slots[1], body), 409, 'CONFLICT');
    expect((await api.state()).meetings).toHaveLength(1);
  });

  it('answers CONFLICT when the scheduling session ended (hook) or lapsed (clock)', async () => {
    const ended = await fireDemo();
    const s = await slotsFor(api, ended.linkId);
    await api.hook('POST', `/_sandbox/executions/${ended.executionId}/end`);
    expectError(
      await book(ended.linkId, s.reservationId, s.slots[0], { workflowExecutionId: ended.executionId }),
      409,
      'CONFLICT',
    );
    const lapsed = await fireDemo('americas');
    await api.hook('POST', '/_sandbox/clock', { advanceSeconds: 3590 });
    const t = await slotsFor(api, lapsed.linkId);
    await api.hook('POST', '/_sandbox/clock', { advanceSeconds: 20 });
    expectError(
      await book(lapsed.linkId, t.reservationId, t.slots.at(-1), { workflowExecutionId: lapsed.executionId }),
      409,
      'CONFLICT',
    );
    expect((await api.state()).executions.map((e: any) => e.sessionEnded)).toEqual([true, true]);
  });
});

describe('concurrency', () => {
  it('books one slot exactly once when ten clients race for it', async () => {
    const reservations = await Promise.all(Array.from({ length: 10 }, () => slotsFor(api, 'sales-emea')));
    const slot = reservations[0]!.slots[0];
    const results = await Promise.all(reservations.map((r) => book('sales-emea', r.reservationId, slot)));
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    for (const r of results.filter((x) => x.status !== 201)) expectError(r, 409, 'SLOT_TAKEN');
    expect((await api.state()).meetings).toHaveLength(1);
  });
});

describe('reschedule', () => {
  it('moves a meeting keeping its host, and treats the same time as a no-op', async () => {
    const s = await slotsFor(api, 'sales-americas');
    const meeting = (await book('sales-americas', s.reservationId, s.slots[0])).body;
    const moved = await api.call('PATCH', `/v1/scheduling/meetings/${meeting.id}`, { startTime: s.slots[2] });
    expect(moved.status).toBe(200);
    expect(strictSchemas.meeting.parse(moved.body)).toMatchObject({
      id: meeting.id,
      date: s.slots[2],
      status: 'rescheduled',
    });
    const same = await api.call('PATCH', `/v1/scheduling/meetings/${meeting.id}`, { startTime: s.slots[2] });
    expect(same.status).toBe(200);
    expect(same.body).toEqual(moved.body);
    expect((await api.state()).meetings[0].hosts).toEqual(['Ben Carter']);
  });

  it('answers CONFLICT for a time its host cannot take, 404 for an unknown meeting and 400 for a bad body', async () => {
    const s = await slotsFor(api, 'sales-americas');
    const first = (await book('sales-americas', s.reservationId, s.slots[0])).body;
    const t = await slotsFor(api, 'sales-americas');
    const second = (await book('sales-americas', t.reservationId, t.slots[1])).body;
    expectError(
      await api.call('PATCH', `/v1/scheduling/meetings/${first.id}`, { startTime: second.date }),
      409,
      'CONFLICT',
    );
    const offGrid = new Date(Date.parse(s.slots[0]!) + 5 * 60_000).toISOString();
    expectError(
      await api.call('PATCH', `/v1/scheduling/meetings/${first.id}`, { startTime: offGrid }),
      409,
      'CONFLICT',
    );
    expectError(
      await api.call('PATCH', '/v1/scheduling/meetings/3f1c2a9e-1111-4222-8333-444455556666', { startTime: offGrid }),
      404,
      'NOT_FOUND',
    );
    const bad = expectError(
      await api.call('PATCH', `/v1/scheduling/meetings/${first.id}`, { startTime: 'tomorrow' }),
      400,
      'INVALID_REQUEST',
    );
    expect(bad.details?.[0]).toMatch(/^startTime: /);
  });
});
