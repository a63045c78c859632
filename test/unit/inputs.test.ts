/** The input checks shared by the commands: each failure is a UsageError naming its flag. */
import { describe, expect, it } from 'vitest';
import { isValidEmail, parseKeyValues, requireEmail, requireUuid } from '../../src/domain/inputs.js';
import { UsageError } from '../../src/errors.js';

function usage(fn: () => unknown): UsageError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return error as UsageError;
  }
  throw new Error('expected a UsageError');
}

const ID = '3f2a9c1e-8b4d-4e6f-9a1b-2c3d4e5f6a7b';

describe('requireUuid', () => {
  it('accepts a uuid in either case, trimmed', () => {
    expect(requireUuid(ID, '--reservation', 'reservation')).toBe(ID);
    expect(requireUuid(ID.toUpperCase(), '--reservation', 'reservation')).toBe(ID.toUpperCase());
    expect(requireUuid(`  ${ID}\n`, '--execution', 'workflow run')).toBe(ID);
  });

  it.each([
    ['empty', ''],
    ['a name', 'intro-call'],
    ['one digit short', ID.slice(0, -1)],
    ['one digit long', `${ID}0`],
    ['text before it', `x${ID}`],
    ['not hex', ID.replace('3f2a', '3g2a')],
    ['without dashes', ID.replaceAll('-', '')],
    ['dashes misplaced', '3f2a9c1e8-b4d-4e6f-9a1b-2c3d4e5f6a7b'],
    ['braced', `{${ID}}`],
  ])('refuses %s, naming the flag and what id it wants', (_label, value) => {
    const e = usage(() => requireUuid(value, '--reservation', 'reservation'));
    expect(e.message).toBe(`invalid --reservation "${value}": expected a reservation id (a uuid such as ${ID})`);
    expect(e.exitCode).toBe(2);
  });
});

describe('requireEmail', () => {
  it('accepts an address, trimmed, keeping its case', () => {
    expect(requireEmail('lead@company.com', '--email')).toBe('lead@company.com');
    expect(requireEmail(' Lead@Company.com \t', '--email')).toBe('Lead@Company.com');
    expect(requireEmail('first.last+tag@sub.example.co.uk', '--guest')).toBe('first.last+tag@sub.example.co.uk');
  });

  it.each([
    '',
    'lead',
    'lead@',
    '@company.com',
    'lead@company',
    'lead company@x.com',
    'a@b@c.com',
    'lead@@company.com',
  ])('refuses %j naming the flag', (value) => {
    const e = usage(() => requireEmail(value, '--guest'));
    expect(e.message).toBe(`invalid --guest "${value}": expected an email address such as lead@company.com`);
  });

  it('isValidEmail does not trim: the callers do', () => {
    expect(isValidEmail('lead@company.com')).toBe(true);
    expect(isValidEmail(' lead@company.com')).toBe(false);
    expect(isValidEmail('nope')).toBe(false);
  });
});

describe('parseKeyValues', () => {
  it('splits at the first =, keeps empty values, and lets a later key win', () => {
    expect(parseKeyValues(['a=b=c', 'x=', 'a=2', 'url=https://x.example/?q=1'], '--field')).toEqual({
      a: '2',
      x: '',
      url: 'https://x.example/?q=1',
    });
    expect(parseKeyValues([], '--field')).toEqual({});
    // Only the key is split off: spaces are the user's.
    expect(parseKeyValues([' k = v '], '--field')).toEqual({ ' k ': ' v ' });
  });

  it.each(['oops', '=value', ''])('refuses %j (no key before an =), naming the flag with an example', (pair) => {
    const e = usage(() => parseKeyValues(['ok=1', pair], '--context'));
    expect(e.message).toBe(`invalid --context "${pair}": expected key=value`);
    expect(e.hint).toBe('e.g. --context company=Acme');
  });

  it('accepts a one-character key', () => {
    expect(parseKeyValues(['k=v'], '--field')).toEqual({ k: 'v' });
  });
});
