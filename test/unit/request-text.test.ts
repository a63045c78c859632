/**
 * Issue 46 items 1 and 2: the one rule for free text sent to the API (control characters, line
 * breaks and bidi overrides refused, the character shown escaped) and the one check of every
 * path segment (`.`, `..` and empty refused), each where every command and tool passes.
 */
import { describe, expect, it } from 'vitest';
import * as z from 'zod/v4';
import { pathSegment, PATHS } from '../../src/api/paths.js';
import { bodyControlProblem, controlCharacterIn, shownEscaped } from '../../src/api/request-text.js';
import { requirePlainAnswers, requirePlainText } from '../../src/domain/inputs.js';
import { checkResponses } from '../../src/domain/triggers.js';
import { answers, LEAD_DETAILS, plainText } from '../../src/mcp/tools/inputs.js';
import { inputProblems } from '../../src/mcp/input.js';

describe('free text sent to the API', () => {
  it('refuses C0 controls, DEL, C1 controls, line separators and bidi overrides; passes text and bidi marks', () => {
    for (const [text, shown] of [
      ['Ann\r\nBcc: evil@x.example', '\\r'],
      ['Lee\u0000', '\\x00'],
      ['\u001b[2J', '\\x1b'],
      ['+1 555\n0100', '\\n'],
      ['a\tb', '\\t'],
      ['x\u007f', '\\x7f'],
      ['x\u0085', '\\x85'],
      ['x\u2028', '\\u2028'],
      ['abc\u202ecba', '\\u202e'],
      ['\u2066x\u2069', '\\u2066'],
    ])
      expect(controlCharacterIn(text!), JSON.stringify(text)).toBe(shown);
    for (const text of [
      'Zoë Ångström',
      '李小龍',
      'O\u2019Brien',
      '\u05e9\u05dc\u05d5\u05dd\u200f',
      '+1 (555) 010-0100',
      '😀',
    ])
      expect(controlCharacterIn(text), JSON.stringify(text)).toBeUndefined();
  });

  it('names the input, shows the value and the character escaped', () => {
    expect(() => requirePlainText('Ann\r\nBcc: evil@x.example', '--first-name')).toThrow(
      'invalid --first-name "Ann\\r\\nBcc: evil@x.example": it holds the control character \\r; control characters, line breaks and bidi overrides are not sent to the API, and nothing was sent',
    );
    expect(requirePlainText(undefined, '--phone')).toBeUndefined();
    expect(() => requirePlainAnswers({ 'a\u0007': 'x' }, '--response')).toThrow('invalid --response key "a\\x07"');
    expect(() => requirePlainAnswers({ notes: 'a\u001b[31m' }, '--response')).toThrow(
      'invalid --response notes "a\\x1b[31m": it holds the control character \\x1b',
    );
    expect(shownEscaped('x'.repeat(200)).length).toBe(81);
  });

  it('finds the first refused string of a request body, keys included, at any depth', () => {
    expect(bodyControlProblem({ personEmail: 'a@b.example', guestFirstName: 'Eve\u0000' })).toEqual({
      where: 'guestFirstName',
      char: '\\x00',
    });
    expect(bodyControlProblem({ responses: { 'k\r': 'v' } })).toEqual({ where: 'responses key "k\\r"', char: '\\r' });
    expect(bodyControlProblem({ context: { utmParams: { source: ['ok', 'a\nb'] } } })).toEqual({
      where: 'context.utmParams.source[1]',
      char: '\\n',
    });
    expect(bodyControlProblem({ startTime: '2026-01-01T00:00:00Z', n: 3, ok: true, none: null })).toBeUndefined();
  });

  it("a trigger's answers: a control character in a key or a value is a problem of its own, nothing else said of it", () => {
    const trigger = {
      id: 't1',
      name: 'T',
      description: '',
      fields: [
        { name: 'company', label: 'Company', type: 'text', required: true, options: null },
        {
          name: 'region',
          label: 'Region',
          type: 'select',
          required: false,
          options: [{ value: 'emea', label: 'EMEA' }],
        },
      ],
    };
    const { problems } = checkResponses(trigger, {
      email: 'a@b.example',
      fields: { company: 'Acme\u0000', 'x\ry': 'z', region: 'emea' },
    });
    expect(problems).toEqual([
      { kind: 'control_char', key: 'company', char: '\\x00', inKey: false },
      { kind: 'control_char', key: 'x\\ry', char: '\\r', inKey: true },
    ]);
  });

  it("a trigger's own field names and select options pass as the server gave them", () => {
    const hostile = '\u001b]0;x\u0007';
    const trigger = {
      id: 't1',
      name: 'T',
      description: '',
      fields: [
        { name: `company${hostile}`, label: 'Company', type: 'text', required: true, options: null },
        {
          name: 'region',
          label: 'Region',
          type: 'select',
          required: false,
          options: [{ value: `emea${hostile}`, label: 'EMEA' }],
        },
      ],
    };
    const r = checkResponses(trigger, {
      email: 'a@b.example',
      fields: { [`company${hostile}`]: 'Acme', region: 'EMEA' },
    });
    expect(r.problems).toEqual([]);
    expect(r.responses).toEqual({ [`company${hostile}`]: 'Acme', region: `emea${hostile}` });
  });

  it('MCP inputs: a name, a phone or a booking answer is refused by the schema, naming the argument', () => {
    const o = z.strictObject({ responses: answers(plainText(100)), ...LEAD_DETAILS });
    const r = o.safeParse({ first_name: 'Ann\r\nBcc', phone: '555', responses: { notes: 'Ac\u001bme' } });
    expect(r.success).toBe(false);
    expect(inputProblems(r.error!, 'book_meeting')).toEqual([
      'responses.notes: holds the control character \\x1b; control characters, line breaks and bidi overrides are not sent to the API',
      'first_name: holds the control character \\r; control characters, line breaks and bidi overrides are not sent to the API',
    ]);
  });
});

describe('path segments', () => {
  it('refuses ".", ".." and empty, naming the input; encodes the rest', () => {
    for (const bad of ['.', '..', '']) expect(() => PATHS.event(bad)).toThrow(`invalid event "${bad}"`);
    expect(() => PATHS.meeting('..')).toThrow('invalid meeting id "..": an id of ".." would name another endpoint');
    expect(() => PATHS.trigger('.')).toThrow('invalid trigger "."');
    expect(() => PATHS.slots('..')).toThrow('nothing was sent');
    expect(PATHS.event('...')).toBe('/v1/scheduling/events/...');
    expect(PATHS.event('../x')).toBe('/v1/scheduling/events/..%2Fx');
    expect(PATHS.event('%2e%2e')).toBe('/v1/scheduling/events/%252e%252e');
    expect(pathSegment('intro call', 'event')).toBe('intro%20call');
  });
});
