/** The spec's four-request routed flow, with plain fetch, for each outcome type. */
import { describe, expect, it } from 'vitest';
import { strictSchemas } from '../../src/api/schemas.js';
import { slotsFor, triggerByName, useApi } from './helpers.js';

const api = useApi();

describe('routed booking flow', () => {
  it('books through a scheduler outcome with the workflow execution linked', async () => {
    const trigger = await triggerByName(api, 'Inbound demo request');
    const fired = await api.call('POST', `/v1/triggers/${trigger.id}`, {
      email: 'lead@acme.com',
      responses: { company: 'Acme', region: 'emea' },
    });
    expect(fired.status).toBe(200);
    const result = strictSchemas.triggerFireResult.parse(fired.body);
    if (result.outcome.type !== 'scheduler') throw new Error('expected a scheduler outcome');
    const linkId = String(result.outcome.schedulingLinkId);
    const slots = await slotsFor(api, linkId);
    expect(slots.slots.length).toBeGreaterThan(0);
    expect(slots.activeHost).toMatchObject({ name: 'Amelia Hart' });
    const booked = await api.call('POST', '/v1/scheduling/meetings', {
      startTime: slots.slots[0],
      reservationId: slots.reservationId,
      event: linkId,
      personEmail: 'lead@acme.com',
      workflowExecutionId: result.executionId,
    });
    expect(booked.status).toBe(201);
    const meeting = strictSchemas.meeting.parse(booked.body);
    expect(meeting).toMatchObject({
      status: 'scheduled',
      date: slots.slots[0],
      personEmail: 'lead@acme.com',
      duration: 30,
    });
    const state = await api.state();
    expect(state.meetings).toHaveLength(1);
    expect(state.meetings[0]).toMatchObject({
      id: meeting.id,
      workflowExecutionId: result.executionId,
      event: linkId,
      hosts: ['Amelia Hart'],
    });
    expect(state.executions[0]).toMatchObject({ id: result.executionId, meetingId: meeting.id });
    expect(state.reservations[0]).toMatchObject({ id: slots.reservationId, status: 'used' });
  });

  it('routes each region to its own link', async () => {
    const trigger = await triggerByName(api, 'Inbound demo request');
    const hosts: Record<string, string> = {};
    for (const region of ['emea', 'americas', 'apac']) {
      const fired = await api.call('POST', `/v1/triggers/${trigger.id}`, {
        email: 'x@acme.com',
        responses: { company: 'A', region },
      });
      const detail = await api.call('GET', `/v1/scheduling/events/${fired.body.outcome.schedulingLinkId}`);
      hosts[region] = strictSchemas.eventDetail
        .parse(detail.body)
        .hosts.map((h) => h.name)
        .join();
    }
    expect(hosts).toEqual({ emea: 'Amelia Hart', americas: 'Ben Carter', apac: 'Chiyo Sato' });
  });

  it('returns a redirect outcome for partner applications', async () => {
    const trigger = await triggerByName(api, 'Partner application');
    const fired = await api.call('POST', `/v1/triggers/${trigger.id}`, {
      email: 'p@partner.io',
      responses: { company: 'P', partner_type: 'reseller' },
    });
    expect(strictSchemas.triggerFireResult.parse(fired.body).outcome).toEqual({
      type: 'redirect',
      url: 'https://partners.example.com/apply?type=reseller',
    });
  });

  it('returns a none outcome for newsletter signups, and every fire is a new execution', async () => {
    const trigger = await triggerByName(api, 'Newsletter signup');
    const a = await api.call('POST', `/v1/triggers/${trigger.id}`, { email: 'n@gmail.com' });
    const b = await api.call('POST', `/v1/triggers/${trigger.id}`, {
      email: 'n@gmail.com',
      responses: { topic: 'product', extra: 'ignored' },
    });
    expect(strictSchemas.triggerFireResult.parse(a.body).outcome).toEqual({ type: 'none' });
    expect(a.body.executionId).not.toBe(b.body.executionId);
    const state = await api.state();
    expect(state.executions.filter((e: any) => e.triggerId === trigger.id)).toHaveLength(2);
  });
});

describe('scheduler URL', () => {
  it('points at a page the sandbox serves', async () => {
    const trigger = await triggerByName(api, 'Inbound demo request');
    const fired = await api.call('POST', `/v1/triggers/${trigger.id}`, {
      email: 'lead@acme.com',
      responses: { company: 'Acme', region: 'apac' },
    });
    const page = await fetch(fired.body.outcome.schedulerUrl);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Sales APAC');
  });
});
