/**
 * Replacing a profile's key at a real terminal (tmux): `profile add <existing name>` without
 * --force asks before it replaces the key, then asks for the new key (hidden), and says which
 * workspace the new key joins and how many leads it holds; the lead is not booked again.
 */
import { describe, expect, it } from 'vitest';
import { demoRouteFirstArgs } from '../helpers/args.js';
import { registerSecret, runCli, show, tempDir } from '../helpers/cli.js';
import { hasTmux, startPane, useTerminalSandbox, type Pane } from '../helpers/tmux.js';

const terminal = useTerminalSandbox();
const noEnv = { SCHEDCTL_API_KEY: undefined, SCHEDCTL_BASE_URL: undefined };

describe.skipIf(!hasTmux)('profile add over an existing profile, at a terminal (tmux)', () => {
  it('asks before replacing the key, hides the new one, and says the workspace and its leads it joins', async () => {
    const sb = terminal.sandbox();
    const dir = tempDir();
    const cli = (args: string[], input?: string) =>
      runCli(args, { configDir: dir, env: noEnv, ...(input === undefined ? {} : { input }) });
    expect((await cli(['profile', 'add', 'acct', '--key-stdin', '--base-url', sb.baseUrl], sb.keys.full)).code).toBe(0);
    const email = 'tty-rotation@acme.example';
    const booked = await cli(['--profile', 'acct', ...demoRouteFirstArgs(email), '--json']);
    expect(booked.code, show(booked)).toBe(0);
    const workspace = (await cli(['profile', 'show', 'acct', '--json'])).json().profile.workspace as string;

    const minted = await fetch(`${sb.baseUrl}/_sandbox/keys`, { method: 'POST', body: '{"scope": "full"}' });
    const { key } = (await minted.json()) as { key: string };
    registerSecret(key);

    let pane: Pane | undefined;
    try {
      pane = startPane('profile-rotate', ['profile', 'add', 'acct', '--base-url', sb.baseUrl, '--no-verify'], {
        SCHEDCTL_CONFIG_DIR: dir,
        SCHEDCTL_RATE: '0',
        NO_COLOR: '1',
      });
      await pane.waitFor('Replace it?');
      expect(pane.screen()).toContain('a new key for the same API joins its workspace');
      await pane.type(['y', 'Enter']);
      await pane.waitFor('API key');
      await pane.type([key, 'Enter']);
      await pane.waitFor('EXIT=0', 15_000);
      const screen = pane.screen();
      expect(screen).toContain(`joins workspace ${workspace}`);
      expect(screen).toContain('1 lead on record');
      // Typed hidden: the key never shows on the screen.
      expect(screen).not.toContain(key);
      expect(screen).not.toContain(key.slice(-12));
    } finally {
      pane?.kill();
    }

    const again = await cli(['--profile', 'acct', ...demoRouteFirstArgs(email, 'apac'), '--json']);
    expect(again.code, show(again)).toBe(5);
    expect(again.json().error.code).toBe('LEAD_HAS_MEETING');
    expect((await sb.state()).meetings.filter((m) => m.personEmail === email)).toHaveLength(1);
  }, 40_000);

  it('leaves the profile as it was when the answer is no', async () => {
    const sb = terminal.sandbox();
    const dir = tempDir();
    expect(
      (
        await runCli(['profile', 'add', 'acct', '--key-stdin', '--base-url', sb.baseUrl], {
          configDir: dir,
          env: noEnv,
          input: sb.keys.full,
        })
      ).code,
    ).toBe(0);
    const before = (await runCli(['profile', 'show', 'acct', '--json'], { configDir: dir, env: noEnv })).json();
    let pane: Pane | undefined;
    try {
      pane = startPane('profile-keep', ['profile', 'add', 'acct', '--base-url', sb.baseUrl], {
        SCHEDCTL_CONFIG_DIR: dir,
        NO_COLOR: '1',
      });
      await pane.waitFor('Replace it?');
      await pane.type(['n', 'Enter']);
      await pane.waitFor('EXIT=', 15_000);
      expect(pane.screen()).toContain('profile "acct" was left as it was');
      expect(pane.screen()).not.toContain('API key');
    } finally {
      pane?.kill();
    }
    const after = (await runCli(['profile', 'show', 'acct', '--json'], { configDir: dir, env: noEnv })).json();
    expect(after).toEqual(before);
  }, 40_000);
});
