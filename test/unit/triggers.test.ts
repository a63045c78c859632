import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Trigger } from '../../src/api/schemas.js';
import { CliError, UsageError } from '../../src/errors.js';
import { closest, levenshtein } from '../../src/domain/closest.js';
import { scopeOf } from '../../src/config/target.js';
import { parseKeyValues } from '../../src/domain/inputs.js';
import { answersKey, openState } from '../../src/state/index.js';
import {
  buildResponses as build,
  checkResponses,
  problemLine,
  resolveTrigger,
  type ResponsesInput,
} from '../../src/domain/triggers.js';
import { parseContext } from '../../src/run/trigger/context.js';
import { demoTrigger } from '../helpers/demo-trigger.js';
import { FIRE_FLAGS } from '../../src/run/trigger/flag-names.js';

const demo = demoTrigger();
const other = (id: string, name: string): Trigger => ({ id, name, description: '', fields: [] });

function usage(fn: () => unknown): UsageError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return error as UsageError;
  }
  throw new Error('expected a UsageError');
}

describe('resolveTrigger', () => {
  const list = [
    demo,
    other('22222222-2222-4222-8222-222222222222', 'Newsletter'),
    other('33333333-3333-4333-8333-333333333333', 'newsletter'),
  ];

  it('finds a trigger by id, by exact name, then by case-insensitive name', () => {
    expect(resolveTrigger(list, demo.id)).toBe(demo);
    expect(resolveTrigger(list, 'newsletter').id).toBe('33333333-3333-4333-8333-333333333333');
    expect(resolveTrigger(list, 'INBOUND demo request')).toBe(demo);
  });

  it('refuses an ambiguous name and lists the matches with their ids', () => {
    const e = usage(() => resolveTrigger(list, 'NEWSLETTER'));
    expect(e.exitCode).toBe(2);
    expect(e.message).toContain('ambiguous');
    expect(e.details).toEqual([
      'Newsletter: 22222222-2222-4222-8222-222222222222',
      'newsletter: 33333333-3333-4333-8333-333333333333',
    ]);
  });

  it('reports an unknown trigger as not found (exit 4) listing the available names', () => {
    try {
      resolveTrigger(list, 'nope');
      throw new Error('expected an error');
    } catch (error) {
      expect(error).toBeInstanceOf(CliError);
      expect((error as CliError).exitCode).toBe(4);
      expect((error as CliError).hint).toContain('"Inbound demo request"');
    }
  });
});

describe('buildResponses', () => {
  // As `trigger fire` words the problems: its flags.
  const buildResponses = (trigger: Trigger, input: ResponsesInput) => build(trigger, input, FIRE_FLAGS);
  const ok = { email: 'lead@acme.com', fields: { company: 'Acme', region: 'emea' } };

  it('returns the responses without the email field', () => {
    expect(buildResponses(demo, ok)).toEqual({ company: 'Acme', region: 'emea' });
  });

  it('lets --field values win over the responses file', () => {
    const r = buildResponses(demo, {
      email: 'lead@acme.com',
      fields: { region: 'apac' },
      fromFile: { company: 'Acme', region: 'emea', email: 'LEAD@acme.com' },
    });
    expect(r).toEqual({ company: 'Acme', region: 'apac' });
  });

  it('maps an exact option label to its value', () => {
    expect(buildResponses(demo, { ...ok, fields: { company: 'Acme', region: 'Asia Pacific' } }).region).toBe('apac');
  });

  it('lists every missing required field together, never the email field', () => {
    const e = usage(() => buildResponses(demo, { email: 'lead@acme.com', fields: {} }));
    expect(e.message).toContain('company, region');
    expect(e.details).toHaveLength(2);
    expect(e.details![0]).toMatch(/^company: required/);
    expect(e.details![1]).toMatch(/^region: required/);
  });

  it('lists the valid values of a select field', () => {
    const e = usage(() => buildResponses(demo, { ...ok, fields: { company: 'Acme', region: 'europe' } }));
    expect(e.details).toEqual(['region: "europe" is not an option; valid values: emea, americas, apac']);
  });

  it('suggests the closest field name for an unknown key', () => {
    const e = usage(() => buildResponses(demo, { ...ok, fields: { ...ok.fields, compnay: 'x' } }));
    expect(e.details![0]).toContain('did you mean "company"?');
  });

  it('rejects a bad email, an email response that conflicts, and non-string file values in one error', () => {
    const e = usage(() =>
      buildResponses(demo, {
        email: 'not-an-email',
        fields: { company: 'A', region: 'emea' },
        fromFile: { notes: { a: 1 }, email: 'x@y.com' },
      }),
    );
    expect(e.details!.map((d) => d.split(':')[0])).toEqual(['email', 'notes', 'email']);
  });

  it("words every problem in the caller's names for its inputs (the CLI's flags)", () => {
    const input = {
      email: 'not-an-email',
      fields: { team_size: 'huge', compnay: 'x' },
      fromFile: { notes: ['a'], email: 'x@y.com' },
    };
    const e = usage(() => buildResponses(demo, input));
    expect(e.message).toBe(
      'invalid input for trigger "Inbound demo request": fix email, notes, team_size, compnay, company, region; nothing was fired',
    );
    expect(e.details).toEqual([
      'email: "not-an-email" is not a valid email address (--email)',
      'notes: must be a string, not an array (--responses)',
      'email: "x@y.com" differs from --email not-an-email; leave it out (it is filled from --email)',
      'team_size: "huge" is not an option; valid values: 1-10',
      'compnay: not a field of this trigger; did you mean "company"?',
      'company: required (Company); pass --field company=…',
      'region: required (Region); pass --field region=emea|americas|apac',
    ]);
    const columns = { email: 'the email column', required: () => 'fill its column' };
    expect(
      checkResponses(demo, input)
        .problems.map((p) => problemLine(p, columns))
        .slice(1, 3),
    ).toEqual([
      'notes: must be a string, not an array',
      'email: "x@y.com" differs from the email column not-an-email; leave it out (it is filled from the email column)',
    ]);
  });

  it('treats a field of type email as the email field', () => {
    const t: Trigger = {
      ...demo,
      fields: [{ name: 'work_email', label: 'Work email', type: 'email', required: true, options: null }],
    };
    expect(buildResponses(t, { email: 'a@b.co', fields: {} })).toEqual({});
  });
});

describe('parseKeyValues and parseContext', () => {
  it('splits at the first =, and names the flag on a pair without one', () => {
    expect(parseKeyValues(['a=b=c', 'x='], '--field')).toEqual({ a: 'b=c', x: '' });
    expect(usage(() => parseKeyValues(['oops'], '--field')).message).toContain('--field');
  });

  it('accepts the six context members, utmParams as JSON', () => {
    expect(parseContext(['utmParams={"source":"ads"}', 'gclid=abc'])).toEqual({
      utmParams: { source: 'ads' },
      gclid: 'abc',
    });
    expect(parseContext([])).toBeUndefined();
  });

  it('rejects an unknown context key with a suggestion, and bad utmParams JSON', () => {
    expect(usage(() => parseContext(['pageurl=x'])).message).toContain('did you mean "pageUrl"');
    expect(usage(() => parseContext(['utmParams={bad'])).message).toContain('--context');
  });
});

describe('closest', () => {
  it('measures edits and refuses far-fetched suggestions', () => {
    expect(levenshtein('kitten', 'sitting')).toBe(3);
    expect(closest('regoin', ['region', 'company'])).toBe('region');
    expect(closest('zzzzzzzz', ['region', 'company'])).toBeUndefined();
  });
});

describe('remembered outcomes (state store)', () => {
  const outcome = { type: 'scheduler' as const, schedulerUrl: 'u', schedulingLinkId: 'l' };
  const FIRED = '2031-03-01T12:00:00.000Z';
  const open = (dir: string) => openState(dir, { now: () => new Date(FIRED) }).outcomes;

  it('remembers only scheduler outcomes, per scope, trigger and case-insensitive email, in a 0600 file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'schedctl-outcomes-'));
    const scope = scopeOf({ baseUrl: 'http://127.0.0.1:4010', apiKey: 'sk_test' });
    expect(scope).toMatch(/^http:\/\/loopback:4010#key:[0-9a-f]{16}$/);
    const key = answersKey({ company: 'Acme' });
    const memory = open(dir);
    expect(
      await memory.remember(scope, 't1', 'Lead@Acme.com', {
        executionId: 'e1',
        outcome,
        firedAt: FIRED,
        answersKey: key,
      }),
    ).toBe(true);
    expect(
      await memory.remember(scope, 't2', 'lead@acme.com', {
        executionId: 'e2',
        outcome: { type: 'none' },
        firedAt: FIRED,
        answersKey: key,
      }),
    ).toBe(false);
    // Another process (a fresh store on the same directory) sees what was saved.
    const again = open(dir);
    expect(await again.get(scope, 't1', 'lead@ACME.com')).toEqual({
      executionId: 'e1',
      outcome,
      firedAt: FIRED,
      email: 'Lead@Acme.com',
      triggerId: 't1',
      answersKey: key,
      scope,
    });
    expect(await again.get(scope, 't2', 'lead@acme.com')).toBeUndefined();
    expect(await again.get(scope, 't1', 'other@acme.com')).toBeUndefined();
    expect(await again.get('prod@https://x', 't1', 'lead@acme.com')).toBeUndefined();
    expect(await again.lookup(scope, 't1', 'LEAD@acme.com', key)).toMatchObject({
      kind: 'match',
      outcome: { executionId: 'e1' },
    });
    expect(await again.lookup(scope, 't1', 'lead@acme.com', answersKey({ company: 'Other' }))).toMatchObject({
      kind: 'different-answers',
    });
    expect(statSync(join(dir, 'ledger.db')).mode & 0o777).toBe(0o600);
    expect((await again.forget(scope, 't1', 'lead@acme.com'))?.executionId).toBe('e1');
    expect(await open(dir).get(scope, 't1', 'lead@acme.com')).toBeUndefined();
    expect(await again.forget(scope, 't1', 'lead@acme.com')).toBeUndefined();
  });

  it('finds and forgets a workflow run within its workspace only', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'schedctl-outcomes-'));
    const memory = open(dir);
    await memory.remember('a@x', 't1', 'lead@acme.com', {
      executionId: 'e1',
      outcome,
      firedAt: FIRED,
      answersKey: 'k',
    });
    await memory.remember('b@x', 't1', 'lead@acme.com', {
      executionId: 'e1',
      outcome,
      firedAt: FIRED,
      answersKey: 'k',
    });
    expect((await memory.findExecution('a@x', 'e1'))?.scope).toBe('a@x');
    expect(await memory.findExecution('a@x', 'e2')).toBeUndefined();
    expect((await memory.forgetExecution('b@x', 'e1'))?.scope).toBe('b@x');
    expect(await memory.findExecution('b@x', 'e1')).toBeUndefined();
    expect(await memory.forgetExecution('b@x', 'e1')).toBeUndefined();
    expect((await memory.get('a@x', 't1', 'lead@acme.com'))?.executionId).toBe('e1');
  });
});
