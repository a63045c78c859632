/** GET /v1/triggers and trigger fire validation. */
import { beforeAll, describe, expect, it } from 'vitest';
import { strictSchemas } from '../../src/api/schemas.js';
import { expectError, triggerByName, useApi } from './helpers.js';

const api = useApi();
let demo: string;
beforeAll(async () => {
  demo = (await triggerByName(api, 'Inbound demo request')).id;
});

const fire = (id: string, body: unknown) => api.call('POST', `/v1/triggers/${id}`, body);

describe('triggers', () => {
  it('lists at least three triggers with text and select fields', async () => {
    const list = strictSchemas.triggersList.parse((await api.call('GET', '/v1/triggers')).body);
    expect(list.triggers.length).toBeGreaterThanOrEqual(3);
    const fields = list.triggers.flatMap((t) => t.fields);
    expect(new Set(fields.map((f) => f.type))).toEqual(new Set(['text', 'select']));
    expect(fields.some((f) => f.name === 'email' && f.type === 'text')).toBe(true);
    expect(fields.some((f) => !f.required)).toBe(true);
  });

  it('names every response key to fix', async () => {
    const error = expectError(
      await fire(demo, { email: 'a@acme.com', responses: { region: 'mars' } }),
      400,
      'INVALID_REQUEST',
    );
    expect(error.details).toEqual([
      'responses.company: required',
      'responses.region: must be one of emea, americas, apac',
    ]);
    expect(error.message).toContain('company');
    expect(error.message).toContain('region');
  });

  it('rejects an email response that conflicts with email, accepts the same one', async () => {
    const error = expectError(
      await fire(demo, { email: 'a@acme.com', responses: { email: 'b@acme.com', company: 'A', region: 'emea' } }),
      400,
      'INVALID_REQUEST',
    );
    expect(error.details?.[0]).toMatch(/^responses\.email: conflicts/);
    expect(
      (await fire(demo, { email: 'a@acme.com', responses: { email: 'A@acme.com', company: 'A', region: 'emea' } }))
        .status,
    ).toBe(200);
  });

  it('validates the body itself', async () => {
    const error = expectError(await fire(demo, { responses: {} }), 400, 'INVALID_REQUEST');
    expect(error.details?.[0]).toMatch(/^email: /);
  });

  it('requires a work email where the form does', async () => {
    expectError(
      await fire(demo, { email: 'a@gmail.com', responses: { company: 'A', region: 'emea' } }),
      400,
      'WORK_EMAIL_REQUIRED',
    );
  });

  it('answers 404 NOT_FOUND for an unknown trigger', async () => {
    expectError(await fire('3f1c2a9e-1111-4222-8333-444455556666', { email: 'a@acme.com' }), 404, 'NOT_FOUND');
    expectError(await fire('not-a-uuid', { email: 'a@acme.com' }), 404, 'NOT_FOUND');
  });
});
