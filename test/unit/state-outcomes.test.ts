import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { answersKey, openState, type State } from '../../src/state/index.js';

const S1 = 'prod@https://api.example.com';
const S2 = 'staging@https://api.example.com';
const scheduler = (link: string) => ({ type: 'scheduler', schedulerUrl: `https://x/${link}`, schedulingLinkId: link });
let state: State;
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'state-outcomes-'));
  state = openState(dir, { now: () => new Date('2031-03-01T12:00:00.000Z') });
});

describe('answersKey', () => {
  it('is the same for the same answers in any key order, and differs when an answer or the context differs', () => {
    const k = answersKey({ company: 'Acme', size: '50' }, { tz: 'UTC', nested: { b: 1, a: [1, 2] } });
    expect(answersKey({ size: '50', company: 'Acme' }, { nested: { a: [1, 2], b: 1 }, tz: 'UTC' })).toBe(k);
    expect(k).toMatch(/^[0-9a-f]{64}$/);
    expect(answersKey({ company: 'Acme', size: '51' }, { tz: 'UTC', nested: { b: 1, a: [1, 2] } })).not.toBe(k);
    expect(answersKey({ company: 'Acme', size: '50' }, { tz: 'Europe/Paris', nested: { b: 1, a: [1, 2] } })).not.toBe(
      k,
    );
    expect(answersKey({ company: 'Acme', size: '50' }, { tz: 'UTC', nested: { b: 1, a: [2, 1] } })).not.toBe(k);
  });
});

describe('remembered outcomes', () => {
  const A = answersKey({ size: '50' });
  const B = answersKey({ size: '5000' });

  it('reuses an outcome only for the same answers of the same lead, trigger and workspace', async () => {
    await state.outcomes.remember(S1, 't1', 'Lead@Example.com ', {
      executionId: 'x1',
      outcome: scheduler('l1'),
      firedAt: 'f',
      answersKey: A,
    });
    const o = state.outcomes;
    expect(await o.lookup(S1, 't1', 'lead@example.com', A)).toMatchObject({
      kind: 'match',
      outcome: { executionId: 'x1', answersKey: A },
    });
    expect(await o.lookup(S1, 't1', 'lead@example.com', B)).toMatchObject({
      kind: 'different-answers',
      previous: { executionId: 'x1' },
    });
    expect(await o.lookup(S1, 't2', 'lead@example.com', A)).toEqual({ kind: 'none' });
    expect(await o.lookup(S2, 't1', 'lead@example.com', A)).toEqual({ kind: 'none' });
    expect(await o.lookup(S1, 't1', 'other@example.com', A)).toEqual({ kind: 'none' });
  });

  it('lets a new fire supersede the previous record, so the old answers no longer match', async () => {
    await state.outcomes.remember(S1, 't1', 'lead@example.com', {
      executionId: 'x1',
      outcome: scheduler('l1'),
      firedAt: 'f',
      answersKey: A,
    });
    await state.outcomes.remember(S1, 't1', 'lead@example.com', {
      executionId: 'x2',
      outcome: scheduler('l2'),
      firedAt: 'f',
      answersKey: B,
    });
    expect(await state.outcomes.lookup(S1, 't1', 'lead@example.com', A)).toMatchObject({
      kind: 'different-answers',
      previous: { executionId: 'x2' },
    });
    // A fire that did not route to a scheduler holds nothing to reuse, and still supersedes.
    expect(
      await state.outcomes.remember(S1, 't1', 'lead@example.com', {
        executionId: 'x3',
        outcome: { type: 'none' },
        firedAt: 'f',
        answersKey: A,
      }),
    ).toBe(false);
    expect(await state.outcomes.lookup(S1, 't1', 'lead@example.com', B)).toEqual({ kind: 'none' });
  });

  it('never reuses a record from before answers were keyed', async () => {
    const legacy = {
      executionId: 'x0',
      outcome: scheduler('l0'),
      firedAt: 'f',
      email: 'lead@example.com',
      triggerId: 't1',
    };
    writeFileSync(join(dir, 'outcomes.json'), JSON.stringify({ outcomes: { [`${S1} t1 lead@example.com`]: legacy } }));
    expect(await state.outcomes.lookup(S1, 't1', 'lead@example.com', A)).toEqual({
      kind: 'different-answers',
      previous: { ...legacy, scope: S1 },
    });
    expect((await state.outcomes.findExecution(S1, 'x0'))?.triggerId).toBe('t1');
    expect(await state.outcomes.forgetExecution(S2, 'x0')).toBeUndefined();
    expect((await state.outcomes.forgetExecution(S1, 'x0'))?.executionId).toBe('x0');
    expect(await state.outcomes.get(S1, 't1', 'lead@example.com')).toBeUndefined();
  });

  it('forgets one lead or one workflow run within its workspace only', async () => {
    for (const scope of [S1, S2]) {
      await state.outcomes.remember(scope, 't1', 'a@example.com', {
        executionId: 'xa',
        outcome: scheduler('l'),
        firedAt: 'f',
        answersKey: A,
      });
      await state.outcomes.remember(scope, 't1', 'b@example.com', {
        executionId: 'xb',
        outcome: scheduler('l'),
        firedAt: 'f',
        answersKey: A,
      });
    }
    expect((await state.outcomes.forgetExecution(S1, 'xa'))?.email).toBe('a@example.com');
    expect(await state.outcomes.get(S1, 't1', 'a@example.com')).toBeUndefined();
    expect(await state.outcomes.get(S2, 't1', 'a@example.com')).toBeDefined();
    expect((await state.outcomes.forget(S2, 't1', 'B@example.com'))?.executionId).toBe('xb');
    expect(await state.outcomes.get(S2, 't1', 'b@example.com')).toBeUndefined();
    expect(await state.outcomes.get(S1, 't1', 'b@example.com')).toBeDefined();
  });
});
