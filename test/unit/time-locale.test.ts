/**
 * The system locale known without asking Intl (domain/time.ts knownEnUsLocale): it must say
 * en-US exactly when Node's Intl, started with the same variables, answers en-US, so that
 * luxon's output is the one it would have had.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { knownEnUsLocale } from '../../src/domain/time.js';

const CASES: Array<Record<string, string>> = [
  {},
  { LANG: 'C' },
  { LANG: 'C.UTF-8' },
  { LANG: 'POSIX' },
  { LANG: 'en_US.UTF-8' },
  { LANG: 'en_US' },
  { LANG: '' },
  { LANG: 'en_GB.UTF-8' },
  { LANG: 'fr_FR.UTF-8' },
  { LC_ALL: 'fr_FR.UTF-8', LANG: 'en_US.UTF-8' },
  { LC_MESSAGES: 'de_DE.UTF-8', LANG: 'C' },
  { LC_ALL: 'C', LANG: 'fr_FR.UTF-8' },
  { LC_ALL: '', LANG: 'en_US.UTF-8' },
  // LC_TIME is not what ICU reads for the default locale.
  { LC_TIME: 'fr_FR.UTF-8' },
];

/** The locale Intl answers in a fresh Node with exactly these locale variables. */
function intlLocale(vars: Record<string, string>): string {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH ?? '', TZ: 'UTC', ...vars };
  const r = spawnSync(process.execPath, ['-p', 'new Intl.DateTimeFormat().resolvedOptions().locale'], {
    env,
    encoding: 'utf8',
  });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout.trim();
}

describe('the system locale known to be en-US without asking Intl', () => {
  it.each(CASES.map((vars) => ({ vars, label: JSON.stringify(vars) })))('$label', ({ vars }) => {
    expect(knownEnUsLocale(vars)).toBe(intlLocale(vars) === 'en-US');
  });

  it('says en-US for the variables the CLI tests run with (none), and not for another language', () => {
    expect(knownEnUsLocale({})).toBe(true);
    expect(knownEnUsLocale({ LANG: 'de_DE.UTF-8' })).toBe(false);
    expect(knownEnUsLocale({ LC_ALL: '', LANG: 'en_US.UTF-8' })).toBe(false);
  });
});
