/**
 * Issue 36 (B, C, D), end to end: a base URL that carries a user name or password is refused in
 * every spelling the URL parser reads as userinfo, from every source (exit 2, never echoed, never
 * saved); a workspace name's case does not split a workspace; percent-encoded unreserved
 * characters in the base URL's path do not make another one.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { demoRouteFirstArgs } from '../helpers/args.js';
import { registerSecret, runCli, type RunResult, show, tempDir } from '../helpers/cli.js';
import { useSandbox } from '../helpers/sandbox.js';

const t = useSandbox();
const SECRET = 'hunter3-spelled-secret';
const KEY = 'sk_test_ident_0123456789abcd';
registerSecret(SECRET, KEY); // never in any output (helpers/cli.ts)

/** The six spellings of issue 36 (`host` and `secret` stand for the sandbox's host:port and SECRET). */
const SPELLINGS = [
  'http:u:secret@host',
  'http:/u:secret@host',
  'http:\\\\u:secret@host',
  'http://u:secret@host',
  'http://u@host',
  'http://:secret@host',
];
const spelled = (pattern: string) =>
  pattern.replace('secret', SECRET).replace(/host$/, t.sb.baseUrl.slice('http://'.length));

/** Where a base URL enters: each is refused with its own name. */
const SOURCES = ['--base-url', 'SCHEDCTL_BASE_URL', 'profile "old"', 'profile add'] as const;
type Source = (typeof SOURCES)[number];

// The spellings are a matrix of the deciding function (hasUserinfo/checkBaseUrl, each spelling from
// every source: test/unit/target-rules.test.ts); end to end, the first spelling enters from every
// source and each other spelling from one source in turn, so each source sees several spellings.
const CASES: Array<[string, readonly Source[]]> = SPELLINGS.map((name, i) => [
  name,
  i === 0 ? SOURCES : [SOURCES[(i - 1) % SOURCES.length]!],
]);

describe('D. a base URL with userinfo, however spelled, is refused from every source', () => {
  it.each(CASES)('%s: exit 2 from %j', async (name, sources) => {
    const url = spelled(name);
    const noEnv = { SCHEDCTL_API_KEY: undefined, SCHEDCTL_BASE_URL: undefined };
    const stored = tempDir();
    mkdirSync(stored, { recursive: true, mode: 0o700 });
    writeFileSync(
      join(stored, 'config.json'),
      JSON.stringify({ defaultProfile: 'old', profiles: { old: { baseUrl: url, apiKey: KEY } } }),
      { mode: 0o600 },
    );
    const added = tempDir();
    const run: Record<Source, () => Promise<RunResult>> = {
      '--base-url': () =>
        runCli(['triggers', 'ls', '--base-url', url], { configDir: tempDir(), env: { SCHEDCTL_API_KEY: KEY } }),
      SCHEDCTL_BASE_URL: () =>
        runCli(['triggers', 'ls', '--json'], {
          configDir: tempDir(),
          env: { SCHEDCTL_API_KEY: KEY, SCHEDCTL_BASE_URL: url },
        }),
      'profile "old"': () => runCli(['triggers', 'ls'], { configDir: stored, env: noEnv }),
      'profile add': () =>
        runCli(['profile', 'add', 'p', '--key-stdin', '--no-verify', '--base-url', url], {
          configDir: added,
          input: KEY,
          env: noEnv,
        }),
    };
    for (const source of sources) {
      const r = await run[source]();
      expect(r.code, `${source}\n${show(r)}`).toBe(2);
      const label = source === 'profile add' ? '--base-url' : source;
      expect(r.stderr, source).toContain(`the base URL from ${label} carries a user name or password`);
      expect(r.stdout + r.stderr, source).not.toContain(SECRET);
      expect(r.stdout + r.stderr, source).not.toContain(url);
      expect(r.stdout + r.stderr, source).not.toContain('this is a bug');
      if (source === 'SCHEDCTL_BASE_URL') expect(r.json().error.code).toBe('USAGE');
      if (source === 'profile add') expect(existsSync(join(added, 'config.json'))).toBe(false);
    }
    if (sources.includes('profile "old"')) {
      // profile ls of the stored one shows it masked.
      const ls = await runCli(['profile', 'ls', '--json'], { configDir: stored, env: noEnv });
      expect(ls.code, show(ls)).toBe(0);
      expect(ls.stdout).not.toContain(SECRET);
      expect(ls.json().profiles[0].baseUrl).toContain('***@');
    }
    expect(await t.sb.requestCount()).toBe(0);
  });
});

describe('B. a workspace name joins whatever its case', () => {
  it('profiles --workspace acme and --workspace Acme (another key of the account) are one ledger: the lead is refused', async () => {
    const rotated = await fetch(`${t.sb.baseUrl}/_sandbox/keys`, { method: 'POST', body: '{"scope": "full"}' });
    const { key } = (await rotated.json()) as { key: string };
    registerSecret(key);
    const dir = t.dir;
    const noEnv = { SCHEDCTL_API_KEY: undefined, SCHEDCTL_BASE_URL: undefined };
    const add = (name: string, workspace: string, k: string) =>
      runCli(['profile', 'add', name, '--key-stdin', '--base-url', t.sb.baseUrl, '--workspace', workspace, '--json'], {
        configDir: dir,
        input: k,
        env: noEnv,
      });
    const a = await add('a', 'acme', t.sb.keys.full);
    const b = await add('b', ' Acme', key);
    expect(a.code, show(a)).toBe(0);
    expect(b.code, show(b)).toBe(0);
    expect(b.json().keyCheck).toBe('passed');
    expect(a.json().profile.workspace).toBe(b.json().profile.workspace);
    expect(a.json().profile.workspace).toMatch(/#ws:acme$/);

    const email = 'joined@acme.example';
    const first = await runCli(['--profile', 'a', ...demoRouteFirstArgs(email, 'emea'), '--json'], {
      configDir: dir,
      env: noEnv,
    });
    expect(first.code, show(first)).toBe(0);
    const second = await runCli(['--profile', 'b', ...demoRouteFirstArgs(email, 'apac'), '--json'], {
      configDir: dir,
      env: noEnv,
    });
    expect(second.code, show(second)).toBe(5);
    expect(second.json().error.code).toBe('LEAD_HAS_MEETING');
    expect((await t.sb.state()).meetings.filter((m) => m.personEmail === email)).toHaveLength(1);
  });
});

describe('C. percent-encoded unreserved characters in the path are one spelling', () => {
  it('/api and /%61pi/ with one key are one workspace', async () => {
    const dir = tempDir();
    const add = (name: string, url: string) =>
      runCli(['profile', 'add', name, '--key-stdin', '--no-verify', '--base-url', url], { configDir: dir, input: KEY });
    expect((await add('plain', 'https://api.example.com/api')).code).toBe(0);
    expect((await add('escaped', 'https://API.example.com/%61pi/')).code).toBe(0);
    expect((await add('other', 'https://api.example.com/ap%2Fi')).code).toBe(0);
    const ls = await runCli(['profile', 'ls', '--json'], { configDir: dir });
    const ws = Object.fromEntries(
      (ls.json().profiles as Array<{ name: string; workspace: string }>).map((p) => [p.name, p.workspace]),
    );
    expect(ws.plain).toMatch(/^https:\/\/api\.example\.com\/api#key:[0-9a-f]{16}$/);
    expect(ws.escaped).toBe(ws.plain);
    expect(ws.other).not.toBe(ws.plain);
  });
});
