/**
 * Which command a run builds (src/cli.ts soleCommand): only the one it runs, unless the run
 * needs every command (the program's help, a suggestion for a misspelled name, completion).
 */
import { describe, expect, it } from 'vitest';
import { soleCommand } from '../../src/cli.js';

const known = (name: string) => ['triggers', 'book', 'profile', 'help', 'completion'].includes(name);

describe('the command a run builds', () => {
  it.each([
    [['triggers', 'ls', '--json'], 'triggers'],
    [['--json', 'book', 'intro-call'], 'book'],
    [['-p', 'book', 'triggers', 'ls'], 'triggers'], // -p takes a value, even one named like a command
    [['--profile', 'prod', '--base-url', 'http://x', '--timeout', '5', 'profile', 'ls'], 'profile'],
    [['--profile=prod', 'triggers'], 'triggers'],
    [['--debug', '--no-color', 'triggers', '--help'], 'triggers'],
  ])('%j builds only %s', (argv, name) => {
    expect(soleCommand(argv, known)).toBe(name);
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
    expect(soleCommand(argv, known)).toBeUndefined();
  });
});
