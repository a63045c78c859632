import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, show } from '../helpers/cli.js';

const VERSION = (
  JSON.parse(readFileSync(resolve(import.meta.dirname, '../../package.json'), 'utf8')) as { version: string }
).version;

describe('the program', () => {
  it('prints help listing every command (also with no arguments), exit 0', async () => {
    for (const args of [['--help'], []]) {
      const r = await runCli(args);
      expect(r.code, show(r)).toBe(0);
      for (const cmd of [
        'route',
        'triggers',
        'trigger',
        'events',
        'slots',
        'book',
        'reschedule',
        'api',
        'smoke',
        'profile',
        'sandbox',
        'completion',
      ]) {
        expect(r.stdout).toMatch(new RegExp(`^  ${cmd}\\b`, 'm'));
      }
      expect(r.stdout).toContain('--json');
    }
  });

  it("names the global flags once, compactly, in every command's help", async () => {
    for (const args of [
      ['triggers', 'ls', '--help'],
      ['book', '--help'],
      ['profile', 'add', '--help'],
    ]) {
      const r = await runCli(args);
      expect(r.code, show(r)).toBe(0);
      expect(r.stdout).toMatch(/^Global flags: --json, --jq <expression>, -p\/--profile <name>,/m);
      expect(r.stdout).toContain('--no-input');
      // Not described line by line (that is `schedctl --help`'s job).
      expect(r.stdout).not.toMatch(/^ +--json {2,}\S/m);
    }
  });

  it('prints the version, the Node.js it runs on and the platform, in text and --json', async () => {
    const line = `schedctl ${VERSION} (Node.js ${process.version}, ${process.platform}-${process.arch})\n`;
    expect((await runCli(['--version'])).stdout).toBe(line);
    expect((await runCli(['-v'])).stdout).toBe(line);
    // Beside another global flag: commander answers it, with the same line.
    expect((await runCli(['--version', '--no-color'])).stdout).toBe(line);
    const j = await runCli(['--version', '--json']);
    expect(j.code, show(j)).toBe(0);
    expect(j.json()).toEqual({
      version: VERSION,
      node: process.version,
      platform: process.platform,
      arch: process.arch,
    });
  });

  it('`schedctl version` (a global flag written as a command): exit 2, did you mean --version?', async () => {
    const r = await runCli(['version']);
    expect(r.code, show(r)).toBe(2);
    expect(r.stderr).toContain("unknown command 'version'");
    expect(r.stderr).toContain('(Did you mean --version?)');
    const j = await runCli(['version', '--json']);
    expect(j.json()).toMatchObject({
      error: { code: 'USAGE', suggestion: '--version', hint: 'did you mean --version?' },
    });
  });

  it('rejects an unknown command or option with exit 2 and a suggestion, and a USAGE document with --json', async () => {
    const r = await runCli(['tirggers', 'ls']);
    expect(r.code, show(r)).toBe(2);
    expect(r.stderr).toContain("unknown command 'tirggers'");
    expect(r.stderr).toContain('triggers');
    const j = await runCli(['slots', 'intro-call', '--dayz', '3', '--json']);
    expect(j.code, show(j)).toBe(2);
    expect(j.json()).toEqual({
      error: {
        code: 'USAGE',
        message: "unknown option '--dayz'",
        suggestion: '--days',
        hint: 'did you mean --days?',
      },
    });
    // The suggestion is a field of its own, not a second line inside the message.
    const c = await runCli(['reschdule', '--json']);
    expect(c.code, show(c)).toBe(2);
    expect(c.json()).toEqual({
      error: {
        code: 'USAGE',
        message: "unknown command 'reschdule'",
        suggestion: 'reschedule',
        hint: 'did you mean reschedule?',
      },
    });
  });

  it('with --json, a usage error is one error line on stderr (none with --quiet), and a command and its alias suggest the command', async () => {
    const j = await runCli(['reschdule', '--json']);
    expect(j.stderr).toBe("error: unknown command 'reschdule' (did you mean reschedule?)\n");
    const q = await runCli(['-q', 'triggers', 'ls', '--bogus', '--json']);
    expect(q.code, show(q)).toBe(2);
    expect(q.stderr).toBe('');
    expect(q.json()).toEqual({ error: { code: 'USAGE', message: "unknown option '--bogus'" } });
    // The other spelling's command: trigger ls is triggers ls, triggers fire is trigger fire.
    expect((await runCli(['trigger', 'ls', '--json'])).json().error).toMatchObject({ suggestion: 'triggers ls' });
    expect((await runCli(['triggers', 'fire'])).stderr).toContain('(Did you mean trigger fire?)');
    const alias = await runCli(['triggers', 'lst', '--json']);
    expect(alias.json().error).toMatchObject({ suggestion: 'list', hint: 'did you mean list?' });
  });

  it('a group without its command, with --json: a USAGE document naming its commands, no help text, exit 2', async () => {
    for (const [args, path] of [
      [['--json'], 'schedctl'],
      [['profile', '--json'], 'schedctl profile'],
      [['-q', 'state', '--json'], 'schedctl state'],
    ] as const) {
      const r = await runCli([...args]);
      expect(r.code, show(r)).toBe(2);
      const { error } = r.json() as { error: { code: string; message: string } };
      expect(error.code).toBe('USAGE');
      expect(error.message).toMatch(new RegExp(`^missing command: ${path} <command>, one of \\w`));
      expect(r.stderr).not.toContain('Usage:');
    }
    expect((await runCli(['profile', '--json'])).json().error.message).toContain('add, ls, use, rm, show');
    // By hand, the group's help, as before.
    const byHand = await runCli(['profile']);
    expect(byHand.code).toBe(2);
    expect(byHand.stderr).toContain('Usage: schedctl profile');
  });
});
