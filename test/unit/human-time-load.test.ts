/**
 * When the parser of times as people say them (chrono) is loaded: only when an input needs it
 * (src/domain/human-time.ts, loadTimeExpressionsFor and readTime). A file of its own: vitest
 * gives each file its own modules, so here the parser starts unloaded, as in a fresh process
 * (and the module is imported once, at the top, as the code runs in the CLI).
 */
import { describe, expect, it } from 'vitest';
import {
  loadTimeExpressionsFor,
  parseLoadedTimeExpression,
  readLoadedTime,
  readTime,
} from '../../src/domain/human-time.js';

/** Wednesday 4 March 2026, 11:30 in Berlin (GMT+1): no test depends on today. */
const OPTS = { zone: 'Europe/Berlin', now: new Date('2026-03-04T10:30:00Z'), name: '--start', zoneInput: '--tz' };
const notUnderstood = /not a time schedctl understands/;

describe('the parser of words loads only when an input needs it', () => {
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

  it('readTime reads words (loading the parser when it is not yet)', async () => {
    expect(await readTime('thu 15:00', OPTS)).toEqual({ kind: 'instant', at: new Date('2026-03-05T14:00:00Z') });
  });
});
