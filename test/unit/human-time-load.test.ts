/**
 * When the parser of times as people say them (chrono) is loaded: only when an input needs it
 * (src/domain/human-time.ts, loadTimeExpressionsFor and readTime). Each test starts with the
 * parser unloaded, as in a fresh process (the suite's workers share modules between files), and
 * the file leaves it loaded, as other files may expect. The module is imported once, at the top:
 * a fresh import inside a test would make its module-level tables count as tested code.
 */
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import {
  forgetTimeExpressions,
  loadTimeExpressions,
  loadTimeExpressionsFor,
  parseLoadedTimeExpression,
  readLoadedTime,
  readTime,
} from '../../src/domain/human-time.js';

/** Wednesday 4 March 2026, 11:30 in Berlin (GMT+1): no test depends on today. */
const OPTS = { zone: 'Europe/Berlin', now: new Date('2026-03-04T10:30:00Z'), name: '--start', zoneInput: '--tz' };
const notUnderstood = /not a time schedctl understands/;

describe('the parser of words loads only when an input needs it', () => {
  beforeEach(() => forgetTimeExpressions());
  afterAll(() => loadTimeExpressions());

  it('loadTimeExpressionsFor leaves it unloaded for fixed forms and none, and loads it for words', async () => {
    await loadTimeExpressionsFor([undefined, '2026-12-01T10:00:00Z', 'today', 'now']);
    // Without the parser only the fixed forms are read.
    expect(() => parseLoadedTimeExpression('tomorrow 3pm', OPTS)).toThrow(notUnderstood);
    expect(() => readLoadedTime('thu 15:00', OPTS)).toThrow(notUnderstood);
    expect(parseLoadedTimeExpression('2026-03-05 15:00', OPTS).toISOString()).toBe('2026-03-05T14:00:00.000Z');
    // A fixed form refused for another reason (no such day) needs no parser either.
    await loadTimeExpressionsFor(['2026-02-30']);
    expect(() => parseLoadedTimeExpression('tomorrow 3pm', OPTS)).toThrow(notUnderstood);
    await loadTimeExpressionsFor(['today', 'tomorrow 3pm']);
    expect(parseLoadedTimeExpression('tomorrow 3pm', OPTS).toISOString()).toBe('2026-03-05T14:00:00.000Z');
  });

  it('readTime loads the parser on the first input the fixed forms do not read, and not for a fixed form', async () => {
    expect(await readTime('2026-03-05 15:00', OPTS)).toEqual({ kind: 'instant', at: new Date('2026-03-05T14:00:00Z') });
    expect(() => readLoadedTime('thu 15:00', OPTS)).toThrow(notUnderstood);
    expect(await readTime('thu 15:00', OPTS)).toEqual({ kind: 'instant', at: new Date('2026-03-05T14:00:00Z') });
    expect(readLoadedTime('thu 16:00', OPTS)).toEqual({ kind: 'instant', at: new Date('2026-03-05T15:00:00Z') });
  });
});
