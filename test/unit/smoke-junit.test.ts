import { describe, expect, it } from 'vitest';
import { junitXml, xmlEscape } from '../../src/domain/smoke/junit.js';
import type { SmokeReport } from '../../src/domain/smoke/types.js';
import { findAll, parseXml } from './smoke-xml.js';

const report: SmokeReport = {
  ok: false,
  requests: 5,
  tries: 5,
  rateWaitMs: 0,
  checks: [
    { name: 'auth', status: 'pass', latencyMs: 12, detail: 'the API key is accepted' },
    {
      name: 'events.list',
      status: 'fail',
      latencyMs: 1500,
      detail:
        'body breaks the contract: $.events[0].conferencingType: Invalid option: expected one of "zoom"|"in_person" & <more>',
      problems: ['$.events[0].conferencingType: Invalid option', "$.events[0].id: it's \u0007 not a uuid"],
    },
    { name: 'booking', status: 'skip', latencyMs: null, detail: 'skipped: pass --book' },
  ],
};

describe('JUnit report', () => {
  it('is well-formed XML with one testcase per check, failures and skips marked', () => {
    const root = parseXml(junitXml(report, { timestamp: new Date('2026-01-05T09:00:00.123Z') }));
    expect(root.name).toBe('testsuites');
    expect(root.attrs).toMatchObject({ tests: '3', failures: '1', skipped: '1' });
    const cases = findAll(root, 'testcase');
    expect(cases.map((c) => c.attrs.name)).toEqual(['auth', 'events.list', 'booking']);
    expect(cases[0]!.attrs.time).toBe('0.012');
    const failure = findAll(cases[1]!, 'failure')[0]!;
    expect(failure.attrs.message).toBe(report.checks[1]!.detail);
    expect(failure.text).toContain("$.events[0].id: it's  not a uuid");
    expect(findAll(cases[2]!, 'skipped')).toHaveLength(1);
    expect(findAll(cases[0]!, 'failure')).toHaveLength(0);
  });

  it('keeps a wait for the rate budget out of the time, as properties of the suite and of each case that waited', () => {
    const waited: SmokeReport = {
      ok: true,
      requests: 4,
      tries: 4,
      rateWaitMs: 2600,
      checks: [
        { name: 'auth', status: 'pass', latencyMs: 12, detail: 'ok' },
        { name: 'slots', status: 'pass', latencyMs: 9, rateWaitMs: 2500, detail: 'ok' },
        { name: 'booking', status: 'skip', latencyMs: null, rateWaitMs: 5, detail: 'skipped' },
        { name: 'x', status: 'fail', latencyMs: 3, rateWaitMs: 7, detail: 'bad' },
      ],
    };
    const root = parseXml(junitXml(waited, { timestamp: new Date('2026-01-05T09:00:00.123Z') }));
    const suite = findAll(root, 'testsuite')[0]!;
    expect(root.attrs.time).toBe('0.024');
    const props = (node: typeof root) =>
      Object.fromEntries(findAll(node, 'property').map((p) => [p.attrs.name, p.attrs.value]));
    expect(props(findAll(suite, 'properties')[0]!)).toMatchObject({ requests: '4', rateWaitMs: '2600' });
    const cases = findAll(root, 'testcase');
    expect(cases[1]!.attrs.time).toBe('0.009');
    expect(props(cases[1]!)).toEqual({ rateWaitMs: '2500' });
    expect(props(cases[2]!)).toEqual({ rateWaitMs: '5' });
    expect(props(cases[3]!)).toEqual({ rateWaitMs: '7' });
    expect(findAll(cases[0]!, 'property')).toHaveLength(0);
  });

  it('escapes markup and drops characters XML cannot carry', () => {
    expect(xmlEscape(`a<b>&"c"'\u0000\u001b`)).toBe('a&lt;b&gt;&amp;&quot;c&quot;&apos;');
  });

  it('the test reader itself rejects broken XML', () => {
    expect(() => parseXml('<a><b></a></b>')).toThrow();
    expect(() => parseXml('<a x="1 & 2"/>')).toThrow();
    expect(() => parseXml('<a>1 < 2</a>')).toThrow();
    expect(() => parseXml('<a/><b/>')).toThrow();
    expect(() => parseXml('<a>')).toThrow();
  });
});
