import { describe, expect, it } from 'vitest';
import { judgeAuth, overBudget } from '../../src/domain/smoke/verdicts.js';

describe('smoke verdicts', () => {
  it('treats any API answer but 401 as an accepted key, and stops on 401 or an unreachable API', () => {
    expect(judgeAuth({ ok: true, data: {}, latencyMs: 5 }).check.status).toBe('pass');
    expect(judgeAuth({ ok: false, latencyMs: 5, detail: 'x', status: 403 }).check).toMatchObject({
      status: 'pass',
      detail: expect.stringContaining('HTTP 403'),
    });
    expect(judgeAuth({ ok: false, latencyMs: 5, detail: 'contract', problems: ['$.a: b'] }).check.status).toBe('pass');
    expect(judgeAuth({ ok: false, latencyMs: 5, detail: 'refused', status: 401 })).toMatchObject({
      check: { status: 'fail' },
      stop: 'the API key is refused',
    });
    expect(judgeAuth({ ok: false, latencyMs: 5, detail: 'ECONNREFUSED', unreachable: true })).toMatchObject({
      stop: 'the API is unreachable',
    });
  });

  it('leaves the key undecided on a 5xx or gateway page', () => {
    expect(judgeAuth({ ok: false, latencyMs: 5, detail: 'html', status: 502 })).toMatchObject({
      check: { status: 'fail' },
      undecided: true,
    });
  });

  it('fails a passing check over the latency budget and leaves others alone', () => {
    const pass = { name: 'slots', status: 'pass' as const, latencyMs: 1200, detail: '3 slots' };
    expect(overBudget(pass, 1000, '--max-latency')).toMatchObject({
      status: 'fail',
      detail: 'took 1200 ms, over the --max-latency budget of 1000 ms (3 slots)',
    });
    expect(overBudget(pass, 1200, '--max-latency')).toBe(pass);
    expect(overBudget(pass, undefined, '--max-latency')).toBe(pass);
    expect(overBudget({ ...pass, status: 'skip', latencyMs: null }, 1, '--max-latency')).toMatchObject({
      status: 'skip',
    });
  });
});
