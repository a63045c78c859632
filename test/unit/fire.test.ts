import { describe, expect, it } from 'vitest';
import type { Trigger } from '../../src/api/schemas.js';
import { FiredNotRecordedError, fireTrigger, rememberFired } from '../../src/domain/fire.js';
import { StateWriteError } from '../../src/state/index.js';
import { ApiError, OutcomeUnknownError } from '../../src/errors.js';

const trigger: Trigger = {
  id: '3f0e5f1e-6a43-4d5c-9c1e-2b7a0c9d1e11',
  name: 'Demo request',
  description: '',
  fields: [],
};
const failing = (error: Error) => {
  let calls = 0;
  return {
    api: {
      fireTrigger: async () => {
        calls++;
        throw error;
      },
    },
    calls: () => calls,
  };
};

describe('fireTrigger', () => {
  it('reports a lost answer as outcome unknown, saying not to fire again, and sends once', async () => {
    const f = failing(new OutcomeUnknownError('POST /v1/triggers/x: no response within 1 s'));
    const error = await fireTrigger(f.api, trigger, { email: 'a@acme.example' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect((error as OutcomeUnknownError).message).toContain('do not fire again blindly');
    expect((error as OutcomeUnknownError).exitCode).toBe(7);
    expect(f.calls()).toBe(1);
  });

  it('adds what to change to the API refusals, keeping code, status and details', async () => {
    const refused = new ApiError({
      status: 403,
      code: 'MISSING_SCOPE',
      message: 'needs triggers:write',
      method: 'POST',
      path: '/v1/triggers/x',
      details: ['scope: triggers:write'],
    });
    const error = (await fireTrigger(failing(refused).api, trigger, { email: 'a@acme.example' }).catch(
      (e: unknown) => e,
    )) as ApiError;
    expect(error).toMatchObject({
      code: 'MISSING_SCOPE',
      status: 403,
      exitCode: 3,
      details: ['scope: triggers:write'],
    });
    expect(error.hint).toContain('triggers:write');
    const other = new ApiError({
      status: 500,
      code: 'INTERNAL_ERROR',
      message: 'boom',
      method: 'POST',
      path: '/v1/triggers/x',
    });
    expect(await fireTrigger(failing(other).api, trigger, { email: 'a@acme.example' }).catch((e: unknown) => e)).toBe(
      other,
    );
    const missing = new ApiError({
      status: 404,
      code: 'NOT_FOUND',
      message: 'no trigger',
      method: 'POST',
      path: '/v1/triggers/x',
    });
    const hinted = (await fireTrigger(failing(missing).api, trigger, { email: 'a@acme.example' }).catch(
      (e: unknown) => e,
    )) as ApiError;
    expect(hinted.hint).toContain('schedctl triggers ls');
  });
});

describe('a fire whose outcome cannot be recorded (disk full right after it)', () => {
  const result = {
    executionId: '50c2a163-7e9f-4180-8cd3-6f708192a3b4',
    outcome: { type: 'scheduler', schedulerUrl: 'https://x/book', schedulingLinkId: 'l1' },
  } as const;
  const full = () =>
    new StateWriteError(
      '/cfg/outcomes.json',
      Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' }),
    );

  it('says the trigger WAS fired, with the run id, never "nothing was saved"', async () => {
    const error = await rememberFired(trigger, result, async () => {
      throw full();
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FiredNotRecordedError);
    const e = error as FiredNotRecordedError;
    expect(e.message).toContain(`"Demo request" WAS fired (workflow run ${result.executionId}`);
    expect(e.message).toContain('cannot write /cfg/outcomes.json (ENOSPC: no space left on device)');
    expect(e.message).not.toContain('nothing was saved');
    expect(e.code).toBe('STATE_WRITE');
    expect(e.exitCode).toBe(1);
    expect(e.hint).toMatch(/^do not fire it again for this lead/);
    expect(e.toDocument()).toMatchObject({ error: { code: 'STATE_WRITE' }, executionId: result.executionId });
  });

  it('passes other failures through unchanged, and a recorded fire through silently', async () => {
    const other = new Error('boom');
    await expect(rememberFired(trigger, result, async () => Promise.reject(other))).rejects.toBe(other);
    await expect(rememberFired(trigger, result, async () => undefined)).resolves.toBeUndefined();
  });
});
