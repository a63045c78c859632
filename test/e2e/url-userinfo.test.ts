/**
 * No URL with userinfo is ever quoted (issue 44, 5), through the built CLI: a password in a base
 * URL, the `@` percent-encoded or not, from --base-url, SCHEDCTL_BASE_URL, a stored profile,
 * `schedctl mcp` (its --print-config and a tool call of its server) and the state URL, in text and
 * --json. The password is a registered secret: every run (test/helpers/cli.ts) and every MCP result
 * (test/helpers/mcp-client.ts) fails the test if it is printed anywhere.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { registerSecret, runCli, show, tempDir } from '../helpers/cli.js';
import { startMcp, type McpSession } from '../helpers/mcp-client.js';
import { useSandbox } from '../helpers/sandbox.js';

const t = useSandbox();
const PW = 's3cr3tPW-userinfo-44';
registerSecret(PW);

/** The spellings of the probe (the `@` and `:` percent-encoded among them), at the sandbox's port. */
const spellings = () => {
  const port = new URL(t.sb.baseUrl).port;
  return [
    `http://u:${PW}%40127.0.0.1:${port}`,
    `http://u%3A${PW}%40127.0.0.1:${port}`,
    `http://u%3A${PW}@127.0.0.1:${port}`,
    `http://u:${PW}@127.0.0.1:${port}`,
    `http:/u:${PW}%40127.0.0.1:${port}`,
    `http://u:${PW}`,
  ];
};

let session: McpSession | undefined;
afterEach(async () => {
  await session?.close();
  session = undefined;
});

describe('a password in a base URL is never printed', () => {
  // Every spelling is parsed and refused by the unit tests (test/unit/url-userinfo.test.ts); here
  // each goes through the built CLI once, the channels and formats taken in turn, so that every
  // channel meets the percent-encoded `@` and every one is seen in text and in --json.
  it('--base-url and SCHEDCTL_BASE_URL: exit 2, in text and --json', async () => {
    for (const [i, url] of spellings().entries()) {
      const json = i % 2 === 0 ? [] : ['--json'];
      const flag = await t.sb.cli(['triggers', 'ls', '--base-url', url, ...json], { configDir: t.dir });
      expect(flag.code, show(flag)).toBe(2);
      expect(flag.stderr + flag.stdout).toContain('--base-url');
      const env = await t.sb.cli(['triggers', 'ls', ...(i % 2 === 0 ? ['--json'] : [])], {
        configDir: t.dir,
        env: { SCHEDCTL_BASE_URL: url },
      });
      expect(env.code, show(env)).toBe(2);
      expect(env.stderr + env.stdout).toContain('SCHEDCTL_BASE_URL');
      if (i >= 2) continue;
      const add = await runCli(['profile', 'add', 'p', '--key-stdin', '--no-verify', '--base-url', url], {
        configDir: tempDir(),
        input: t.sb.keys.full,
      });
      expect(add.code, show(add)).toBe(2);
    }
    expect(await t.sb.requestCount()).toBe(0);
  });

  it('a stored profile: refused naming it; profile ls and show hide it', async () => {
    const views = [
      ['profile', 'ls'],
      ['profile', 'ls', '--json'],
      ['profile', 'show', 'old'],
      ['profile', 'show', 'old', '--json'],
    ];
    for (const [i, url] of spellings().entries()) {
      const dir = tempDir();
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      const config = { defaultProfile: 'old', profiles: { old: { baseUrl: url, apiKey: t.sb.keys.full } } };
      writeFileSync(join(dir, 'config.json'), JSON.stringify(config), { mode: 0o600 });
      const env = { SCHEDCTL_API_KEY: undefined, SCHEDCTL_BASE_URL: undefined };
      const r = await runCli(['triggers', 'ls', '--json'], { configDir: dir, env });
      expect(r.code, show(r)).toBe(2);
      // Each view for the first (percent-encoded) spelling; one view each for the others.
      for (const args of i === 0 ? views : [views[i % views.length]!]) {
        const shown = await runCli(args, { configDir: dir, env });
        expect(shown.code, show(shown)).toBe(0);
      }
    }
  });

  it('schedctl mcp: --print-config refuses it; a tool call of a server given it answers an error without it', async () => {
    for (const url of spellings()) {
      const r = await t.sb.cli(['mcp', '--print-config', '--base-url', url], { configDir: t.dir });
      expect(r.code, show(r)).toBe(2);
    }
    session = await startMcp({
      configDir: t.dir,
      env: { SCHEDCTL_API_KEY: t.sb.keys.full, SCHEDCTL_BASE_URL: spellings()[0] },
    });
    const result = await session.call('list_triggers', {});
    expect(result.isError).toBe(true);
    expect(result.text).toContain('SCHEDCTL_BASE_URL');
  });

  it('a state URL with a password, the @ percent-encoded: refused, never shown', async () => {
    for (const state of [`postgres://u:${PW}%40127.0.0.1:1/db`, `postgres://u%3A${PW}@127.0.0.1:1/db`]) {
      const r = await t.sb.cli(['meetings', 'ls', '--json'], {
        configDir: t.dir,
        env: { SCHEDCTL_STATE_URL: state, PGCONNECT_TIMEOUT: '2' },
      });
      expect(r.code, show(r)).not.toBe(0);
    }
  });
});
