/**
 * Which command a run builds (src/cli.ts soleCommand): only the one it runs, unless the run
 * needs every command (the program's help, a suggestion for a misspelled name, completion).
 */
import { describe, expect, it } from 'vitest';
import { buildProgram, soleCommand } from '../../src/cli.js';
import { createContext } from '../../src/context.js';

const known = (name: string) => ['triggers', 'book', 'profile', 'help', 'completion'].includes(name);
const takesValue = new Set(['-p', '--profile', '--base-url', '--timeout']);

describe('the command a run builds', () => {
  it.each([
    [['triggers', 'ls', '--json'], 'triggers'],
    [['--json', 'book', 'intro-call'], 'book'],
    [['-p', 'book', 'triggers', 'ls'], 'triggers'], // -p takes a value, even one named like a command
    [['--profile', 'prod', '--base-url', 'http://x', '--timeout', '5', 'profile', 'ls'], 'profile'],
    [['--profile=prod', 'triggers'], 'triggers'],
    [['--debug', '--no-color', 'triggers', '--help'], 'triggers'],
  ])('%j builds only %s', (argv, name) => {
    expect(soleCommand(argv, known, takesValue)).toBe(name);
  });

  it.each([
    [[]],
    [['--json']],
    [['trigers', 'ls']], // misspelled: the suggestion needs every name
    [['help', 'triggers']],
    [['completion', 'bash']],
    [['--help', 'triggers']],
    [['-h']],
    [['--', 'triggers']],
  ])('%j builds every command', (argv) => {
    expect(soleCommand(argv, known, takesValue)).toBeUndefined();
  });
});

describe('the program a run builds', () => {
  const names = (argv: string[]) => buildProgram(createContext(), argv).commands.map((c) => c.name());

  it("skips the values of the program's own flags that take one, whatever they are named", () => {
    expect(names(['--timeout', 'book', 'triggers', 'ls'])).toEqual(['triggers']);
    expect(names(['-p', 'route', '--base-url', 'slots', 'book', 'x'])).toEqual(['book']);
    expect(names(['--json', '--debug', 'profile', 'ls'])).toEqual(['profile']);
  });

  it('builds every command when the run needs them', () => {
    expect(names(['trigers'])).toContain('triggers');
    expect(names(['trigers']).length).toBeGreaterThan(10);
  });
});
