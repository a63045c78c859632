import { describe, expect, it } from 'vitest';
import { sanitizeDeep, sanitizeMultiline, sanitizeOutput, sanitizeText } from '../../src/ui/sanitize.js';

const ESC = '\x1b';

describe('sanitizeText', () => {
  it('shows terminal escape sequences escaped instead of letting them act', () => {
    expect(sanitizeText(`${ESC}]0;pwned\x07name`)).toBe('\\x1b]0;pwned\\x07name'); // window title
    expect(sanitizeText(`${ESC}]8;;https://evil.test${ESC}\\click${ESC}]8;;${ESC}\\`)).toBe(
      '\\x1b]8;;https://evil.test\\x1b\\click\\x1b]8;;\\x1b\\',
    ); // hyperlink
    expect(sanitizeText(`${ESC}[2J${ESC}[H`)).toBe('\\x1b[2J\\x1b[H'); // clear screen, cursor home
    expect(sanitizeText(`${ESC}[31mred`)).toBe('\\x1b[31mred'); // even colors: this is data
  });
  it('escapes a bare carriage return, NUL, DEL and every other C0 control', () => {
    expect(sanitizeText('paid\rFREE')).toBe('paid\\rFREE');
    expect(sanitizeText('a\x00b\x7fc\x08d\x0be\x0cf\x1fg')).toBe('a\\x00b\\x7fc\\x08d\\x0be\\x0cf\\x1fg');
  });
  it('escapes C1 controls (a one-byte CSI, NEL)', () => {
    expect(sanitizeText('\x9b2J\x85\x80\x9f')).toBe('\\x9b2J\\x85\\x80\\x9f');
  });
  it('escapes bidi overrides, embeddings, isolates and marks', () => {
    expect(sanitizeText('invoice\u202Efdp.exe')).toBe('invoice\\u202efdp.exe');
    const bidi = [
      '\u202a',
      '\u202b',
      '\u202c',
      '\u202d',
      '\u202e',
      '\u2066',
      '\u2067',
      '\u2068',
      '\u2069',
      '\u200e',
      '\u200f',
      '\u061c',
    ];
    for (const ch of bidi)
      expect(sanitizeText(`x${ch}y`)).toBe(`x\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}y`);
  });
  it('keeps tabs and every printable character as they are', () => {
    const text = 'Démo 会議 🎉 naïve\tcol line 2 — “quotes” ½ \u00a0nbsp שלום مرحبا';
    expect(sanitizeText(text)).toBe(text);
  });
  it('shows every kind of line break escaped: one field stays on one line', () => {
    expect(sanitizeText('a\nb\r\nc\rd\x0be\x0cf\x85g\u2028h\u2029i')).toBe(
      'a\\nb\\r\\nc\\rd\\x0be\\x0cf\\x85g\\u2028h\\u2029i',
    );
  });
  it('returns the very same string when there is nothing to escape', () => {
    const text = 'Intro call with Ada';
    expect(sanitizeText(text)).toBe(text);
    expect(sanitizeText('')).toBe('');
  });
});

describe('sanitizeDeep', () => {
  const original = {
    name: `Demo${ESC}]0;x\x07`,
    labels: ['ok', 'bad\u202e'],
    nested: { [`key${ESC}[2J`]: 'v\r', count: 3, flag: true, none: null },
    when: '2026-12-01T14:00:00.000Z',
  };

  it('sanitizes every string, keys included, at any depth', () => {
    expect(sanitizeDeep(original)).toEqual({
      name: 'Demo\\x1b]0;x\\x07',
      labels: ['ok', 'bad\\u202e'],
      nested: { 'key\\x1b[2J': 'v\\r', count: 3, flag: true, none: null },
      when: '2026-12-01T14:00:00.000Z',
    });
  });
  it('never changes the input, so --json still carries the data unchanged', () => {
    const before = JSON.stringify(original);
    sanitizeDeep(original);
    expect(JSON.stringify(original)).toBe(before);
    expect(before).toContain('\\u001b]0;x\\u0007'); // JSON escapes it itself
    expect(original.labels[1]).toBe('bad\u202e');
  });
  it('passes numbers, booleans, null and undefined through, and keeps a __proto__ key a plain key', () => {
    expect(sanitizeDeep(42)).toBe(42);
    expect(sanitizeDeep(null)).toBeNull();
    expect(sanitizeDeep(undefined)).toBeUndefined();
    const parsed = JSON.parse('{"__proto__":{"polluted":"\\u001b[2J"}}') as Record<string, unknown>;
    const copy = sanitizeDeep(parsed);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(copy, '__proto__')?.value).toEqual({ polluted: '\\x1b[2J' });
  });
});

describe('sanitizeOutput', () => {
  const colored = `${ESC}[1m${ESC}[38;5;208mtitle${ESC}[39m${ESC}[22m ${ESC}[m`;

  it('keeps exactly SGR color sequences when colors are on', () => {
    expect(sanitizeOutput(colored, { keepSgr: true })).toBe(colored);
  });
  it('escapes every other control even when colors are on', () => {
    const hostile = `${ESC}[32mok${ESC}[39m ${ESC}]0;title\x07 ${ESC}[2J ${ESC}[1;1H ${ESC}[?25l \x9b31m a\rb \u202e ${ESC}]8;;u${ESC}\\`;
    expect(sanitizeOutput(hostile, { keepSgr: true })).toBe(
      `${ESC}[32mok${ESC}[39m \\x1b]0;title\\x07 \\x1b[2J \\x1b[1;1H \\x1b[?25l \\x9b31m a\\rb \\u202e \\x1b]8;;u\\x1b\\`,
    );
  });
  it('escapes SGR too when colors are off', () => {
    expect(sanitizeOutput(`${ESC}[31mred${ESC}[39m`, { keepSgr: false })).toBe('\\x1b[31mred\\x1b[39m');
  });
  it('keeps newlines and tabs, and returns clean text unchanged', () => {
    expect(sanitizeOutput('a\tb\nc', { keepSgr: true })).toBe('a\tb\nc');
    expect(sanitizeOutput('a\tb\nc', { keepSgr: false })).toBe('a\tb\nc');
  });
});

describe('sanitizeMultiline', () => {
  it('keeps the lines of a multi-line field, each indented, whatever the line break', () => {
    expect(sanitizeMultiline('one\nerror: two\r\nthree\rfour\x0bfive\x0csix\x85seven\u2028eight\u2029nine', '  ')).toBe(
      'one\n  error: two\n  three\n  four\n  five\n  six\n  seven\n  eight\n  nine',
    );
  });
  it('escapes controls inside each line, and with no indent keeps the lines as they are', () => {
    expect(sanitizeMultiline('a\x1b[2J\nb', '')).toBe('a\\x1b[2J\nb');
  });
});

describe('sanitizeOutput: line separators', () => {
  it("keeps schedctl's own newlines but escapes the Unicode line separators", () => {
    expect(sanitizeOutput('a\nb\u2028c\u2029d', { keepSgr: false })).toBe('a\nb\\u2028c\\u2029d');
  });
});
