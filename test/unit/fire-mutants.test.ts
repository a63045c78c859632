/**
 * Firing a trigger and its fires journal (src/domain/fire.ts), by name: what the journal hears
 * and in which order (prepared, marked sent right before the bytes leave, answered, or forgotten
 * when the fire never left or was refused), that a lost answer keeps its entry, and what a fire
 * that started a run but could not be recorded says.
 */
import { describe, expect, it } from 'vitest';
import type { Trigger, TriggerFireResult } from '../../src/api/schemas.js';
import { type FireJournal, FiredNotRecordedError, fireTrigger, rememberFired } from '../../src/domain/fire.js';
import { ApiError, NetworkError, OutcomeUnknownError } from '../../src/errors.js';
import { StateWriteError } from '../../src/state/index.js';

const trigger: Trigger = {
  id: '3f0e5f1e-6a43-4d5c-9c1e-2b7a0c9d1e11',
  name: 'Demo request',
  description: '',
  fields: [],
};
const result: TriggerFireResult = {
  executionId: '7d1c1c2e-4b8e-4d0a-9a55-0c3f1f7b2a10',
  outcome: { type: 'none' },
} as TriggerFireResult;
const body = { email: 'lead@acme.example' };

/** A journal that writes down every call, in order; `fail` makes one of its steps throw. */
function journal(id = 'fire-1', fail: Partial<Record<keyof FireJournal, Error>> = {}) {
  const calls: string[] = [];
  const step =
    (name: keyof FireJournal) =>
    async (...args: unknown[]) => {
      calls.push(`${name}(${args.map((a) => (typeof a === 'string' ? a : 'result')).join(', ')})`);
      if (fail[name]) throw fail[name];
    };
  const j: FireJournal = {
    prepare: async () => {
      calls.push('prepare');
      return id;
    },
    markSent: step('markSent'),
    answered: step('answered'),
    forget: step('forget'),
  };
  return { j, calls };
}

/** An API whose fire leaves (its send hook runs) or not, then answers `answer` or throws it. */
function api(answer: TriggerFireResult | Error, { leaves = true } = {}) {
  return {
    fireTrigger: async (_id: string, _body: unknown, opts: { beforeSend?: () => Promise<unknown> } = {}) => {
      if (leaves) await opts.beforeSend?.();
      if (answer instanceof Error) throw answer;
      return answer;
    },
  };
}
const refused = () =>
  new ApiError({ status: 404, code: 'NOT_FOUND', message: 'no trigger', method: 'POST', path: '/v1/triggers/x' });
const caught = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e,
  );

describe('fireTrigger and its journal', () => {
  it('a fire answered: prepared, marked sent as it leaves, answered with its run', async () => {
    const { j, calls } = journal();
    await expect(fireTrigger(api(result), trigger, body, j)).resolves.toEqual(result);
    expect(calls).toEqual(['prepare', 'markSent(fire-1)', 'answered(fire-1, result)']);
  });

  it('a run that started is returned even when writing its answer down fails', async () => {
    const { j, calls } = journal('fire-1', { answered: new Error('disk full') });
    await expect(fireTrigger(api(result), trigger, body, j)).resolves.toEqual(result);
    expect(calls).toEqual(['prepare', 'markSent(fire-1)', 'answered(fire-1, result)']);
  });

  it('a lost answer after the fire left keeps the entry (outcome unknown, exit 7), saying not to fire blindly', async () => {
    const { j, calls } = journal();
    const lost = new OutcomeUnknownError('POST /v1/triggers/x: no response within 30 s');
    const error = (await caught(fireTrigger(api(lost), trigger, body, j))) as OutcomeUnknownError;
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect(error.message).toBe(
      'no answer to firing "Demo request" (POST /v1/triggers/x: no response within 30 s): the workflow run may have started; do not fire again blindly',
    );
    expect(error.hint).toBe(
      'each fire starts a new run (CRM writes and notifications repeat, routing fairness counts again): check the run in the workflow history before firing again',
    );
    expect(error.cause).toBe(lost);
    expect(calls).toEqual(['prepare', 'markSent(fire-1)']);
  });

  it('an outcome unknown before the fire left (its send hook never ran) forgets the entry', async () => {
    const { j, calls } = journal();
    const error = await caught(fireTrigger(api(new OutcomeUnknownError('x'), { leaves: false }), trigger, body, j));
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect(calls).toEqual(['prepare', 'forget(fire-1)']);
  });

  it("a refusal forgets the entry and carries the fire's hint", async () => {
    const { j, calls } = journal();
    const error = (await caught(fireTrigger(api(refused()), trigger, body, j))) as ApiError;
    expect(error).toMatchObject({ code: 'NOT_FOUND', status: 404 });
    expect(error.hint).toBe('no such trigger in this workspace: list them with `schedctl triggers ls`');
    expect(calls).toEqual(['prepare', 'markSent(fire-1)', 'forget(fire-1)']);
  });

  it('any other failure is passed on as it is, the entry forgotten, even when forgetting fails', async () => {
    const { j, calls } = journal('fire-1', { forget: new Error('disk gone') });
    const down = new NetworkError('could not reach the API for POST /v1/triggers/x (ECONNREFUSED); nothing was sent');
    expect(await caught(fireTrigger(api(down, { leaves: false }), trigger, body, j))).toBe(down);
    expect(calls).toEqual(['prepare', 'forget(fire-1)']);
  });

  it('a journal that prepared no entry (empty id) is not written to', async () => {
    const { j, calls } = journal('');
    await fireTrigger(api(result), trigger, body, j);
    await caught(fireTrigger(api(refused()), trigger, body, j));
    expect(calls).toEqual(['prepare', 'prepare']);
  });

  it('fires without a journal', async () => {
    await expect(fireTrigger(api(result), trigger, body)).resolves.toEqual(result);
    expect(await caught(fireTrigger(api(refused()), trigger, body))).toBeInstanceOf(ApiError);
  });
});

describe('a fire that could not be recorded', () => {
  const full = () =>
    new StateWriteError('/cfg/ledger.db', Object.assign(new Error('no space left'), { code: 'ENOSPC' }));

  it('says the trigger WAS fired, with its run, what could not be written and why', () => {
    const cause = full();
    const e = new FiredNotRecordedError(trigger, result, cause);
    expect(e.code).toBe('STATE_WRITE');
    expect(e.exitCode).toBe(1);
    expect(e.message).toMatch(
      /^"Demo request" WAS fired \(workflow run 7d1c1c2e-4b8e-4d0a-9a55-0c3f1f7b2a10, outcome none\), but its outcome could not be recorded: cannot write \/cfg\/ledger\.db \((?!.*nothing was saved).+\)$/,
    );
    expect(e.message).toContain('ENOSPC');
    expect(e.hint).toBe(`do not fire it again for this lead: the run exists; ${cause.hint}`);
    expect(e.toDocument()).toMatchObject({ executionId: result.executionId, outcome: { type: 'none' } });
  });

  it('without a hint of its cause, says to free space; a cause in other words is quoted whole', () => {
    const cause = full();
    Object.defineProperty(cause, 'hint', { value: undefined });
    Object.defineProperty(cause, 'message', { value: 'the ledger is read-only' });
    const e = new FiredNotRecordedError(trigger, result, cause);
    expect(e.hint).toBe(
      'do not fire it again for this lead: the run exists; free some space and check the configuration directory',
    );
    expect(e.message).toMatch(/cannot write \/cfg\/ledger\.db \(the ledger is read-only\)$/);
  });

  it('rememberFired turns a failed write into it, and passes anything else on', async () => {
    await expect(rememberFired(trigger, result, async () => 'ok')).resolves.toBeUndefined();
    await expect(rememberFired(trigger, result, () => Promise.reject(full()))).rejects.toBeInstanceOf(
      FiredNotRecordedError,
    );
    const other = new Error('bug');
    expect(await caught(rememberFired(trigger, result, () => Promise.reject(other)))).toBe(other);
  });
});
