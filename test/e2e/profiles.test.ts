import { statSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerSecret, runCli, show, tempDir } from '../helpers/cli.js';
import { sendJson, startTestServer, TRIGGERS_BODY } from '../helpers/server.js';

const KEY_A = 'sk_test_profileA_0123456789abcd';
const KEY_B = 'sk_test_profileB_9876543210wxyz';
const KEY_ENV = 'sk_test_fromenv_55555555aaaa';
/** Another key ending like KEY_A: masked alone, both read `sk_…abcd`. */
const KEY_SAME_TAIL = 'sk_test_profileC_ffffffffffabcd';
registerSecret(KEY_A, KEY_B, KEY_ENV, KEY_SAME_TAIL);
/** A profile's ledger workspace: its normalised base URL and key fingerprint (state/identity.ts). */
const WORKSPACE = expect.stringMatching(/^http:\/\/loopback:\d+#key:[0-9a-f]{16}$/);

describe('profiles and the key store', () => {
  let serverA: Awaited<ReturnType<typeof startTestServer>>;
  let serverB: Awaited<ReturnType<typeof startTestServer>>;
  let serverC: Awaited<ReturnType<typeof startTestServer>>;
  beforeAll(async () => {
    serverA = await startTestServer((_req, res) => sendJson(res, 200, TRIGGERS_BODY));
    serverB = await startTestServer((_req, res) => sendJson(res, 200, TRIGGERS_BODY));
    serverC = await startTestServer((_req, res) => sendJson(res, 200, TRIGGERS_BODY));
  });
  afterAll(async () => {
    await serverA.close();
    await serverB.close();
    await serverC.close();
  });

  async function setup() {
    const configDir = tempDir();
    const a = await runCli(['profile', 'add', 'alpha', '--key-stdin', '--base-url', serverA.baseUrl], {
      configDir,
      input: `${KEY_A}\n`,
    });
    expect(a.code, show(a)).toBe(0);
    const b = await runCli(['profile', 'add', 'beta', '--key-stdin', '--base-url', serverB.baseUrl], {
      configDir,
      input: KEY_B,
    });
    expect(b.code, show(b)).toBe(0);
    return configDir;
  }

  // The tests that only read the two profiles (the file's modes, the resolution and precedence
  // tests) share one config dir, made by the first of them to run.
  let precedenceDir: Promise<string> | undefined;
  const twoProfiles = () => (precedenceDir ??= setup());

  it('never masks two different keys the same in one listing (a fingerprint tells them apart)', async () => {
    const configDir = await setup();
    const c = await runCli(['profile', 'add', 'gamma', '--key-stdin', '--base-url', serverC.baseUrl], {
      configDir,
      input: KEY_SAME_TAIL,
    });
    expect(c.code, show(c)).toBe(0);
    const keys = runCli(['profile', 'ls', '--json'], { configDir }).then((r) =>
      r.json<{ profiles: Array<{ name: string; key: string }> }>().profiles.map((p) => p.key),
    );
    const [alpha, beta, gamma] = await keys;
    expect(alpha).toMatch(/^sk_…abcd #[0-9a-f]{6}$/);
    expect(gamma).toMatch(/^sk_…abcd #[0-9a-f]{6}$/);
    expect(alpha).not.toBe(gamma);
    expect(beta).toBe('sk_…wxyz');
    const human = await runCli(['profile', 'ls'], { configDir });
    expect(human.stdout).toContain(alpha);
    expect(human.stdout).toContain(gamma);
  });

  it('adds, lists with masked keys, switches and removes profiles', async () => {
    const configDir = await setup();
    const ls = await runCli(['profile', 'ls', '--json'], { configDir });
    expect(ls.code, show(ls)).toBe(0);
    expect(ls.json()).toEqual({
      profiles: [
        { name: 'alpha', baseUrl: serverA.baseUrl, key: 'sk_…abcd', isDefault: true, workspace: WORKSPACE },
        { name: 'beta', baseUrl: serverB.baseUrl, key: 'sk_…wxyz', isDefault: false, workspace: WORKSPACE },
      ],
    });
    const human = await runCli(['profile', 'ls'], { configDir });
    expect(human.stdout).toMatch(/\*\s+alpha\s+http:\/\/127\.0\.0\.1:\d+\s+sk_…abcd/);

    expect((await runCli(['profile', 'use', 'beta'], { configDir })).code).toBe(0);
    const shown = await runCli(['profile', 'show', '--json'], { configDir });
    expect(shown.json().profile).toMatchObject({ name: 'beta', key: 'sk_…wxyz', isDefault: true });

    const rm = await runCli(['profile', 'rm', 'alpha'], { configDir });
    expect(rm.code, show(rm)).toBe(0);
    const after = await runCli(['profile', 'ls', '--json'], { configDir });
    expect(after.json().profiles.map((p: { name: string }) => p.name)).toEqual(['beta']);

    const unknown = await runCli(['profile', 'use', 'nope'], { configDir });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown profile "nope"');

    // Removing the default leaves none: rm says which to make the default, and so does a command.
    expect(
      (await runCli(['profile', 'add', 'gamma', '--key-stdin', '--no-verify'], { configDir, input: KEY_A })).code,
    ).toBe(0);
    const rmDefault = await runCli(['profile', 'rm', 'beta'], { configDir });
    expect(rmDefault.stderr).toContain('note: "beta" was the default profile; none is now: schedctl profile use gamma');
    const none = await runCli(['triggers', 'ls', '--json'], { configDir });
    expect(none.code).toBe(3);
    expect(none.json().error).toMatchObject({
      code: 'NO_API_KEY',
      hint: 'no profile is the default (profiles: gamma): pass --profile gamma, or make one the default: schedctl profile use gamma',
    });
  });

  it('stores keys in a 0600 file inside a 0700 directory', async () => {
    const configDir = await twoProfiles();
    expect(statSync(configDir).mode & 0o777).toBe(0o700);
    expect(statSync(join(configDir, 'config.json')).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(configDir, 'config.json'), 'utf8')).toContain(KEY_A);
  });

  it('never accepts a key as a command-line argument', async () => {
    for (const args of [
      ['profile', 'add', 'x', KEY_A],
      ['profile', 'add', 'x', '--key', KEY_A],
      ['profile', 'add', 'x', `--api-key=${KEY_A}`],
    ]) {
      const r = await runCli(args);
      expect(r.code, show(r)).toBe(2);
      expect(r.stderr).toContain('not accepted as command-line arguments');
    }
  });

  it('fails naming --key-stdin when stdin is not a terminal, and on an empty key', async () => {
    const noTty = await runCli(['profile', 'add', 'x']);
    expect(noTty.code).toBe(2);
    expect(noTty.stderr).toContain('--key-stdin');
    const empty = await runCli(['profile', 'add', 'x', '--key-stdin'], { input: '\n' });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('stdin was empty');
  });

  it('resolves the profile: --profile > SCHEDCTL_PROFILE > default', async () => {
    const configDir = await twoProfiles();
    const before = [serverA.seen.length, serverB.seen.length];
    await runCli(['api', 'GET', '/v1/triggers'], { configDir });
    expect(serverA.seen.length).toBe(before[0]! + 1);
    expect(serverA.seen.at(-1)!.headers.authorization).toBe(`Bearer ${KEY_A}`);

    await runCli(['api', 'GET', '/v1/triggers'], { configDir, env: { SCHEDCTL_PROFILE: 'beta' } });
    expect(serverB.seen.at(-1)!.headers.authorization).toBe(`Bearer ${KEY_B}`);

    const flag = await runCli(['api', 'GET', '/v1/triggers', '--profile', 'alpha'], {
      configDir,
      env: { SCHEDCTL_PROFILE: 'beta' },
    });
    expect(flag.code, show(flag)).toBe(0);
    expect(serverA.seen.at(-1)!.headers.authorization).toBe(`Bearer ${KEY_A}`);

    const unknown = await runCli(['api', 'GET', '/v1/triggers', '--profile', 'gamma'], { configDir });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown profile "gamma" (from --profile)');
  });

  // The precedence, end to end (docs/profiles-and-keys.md): what the user typed (--profile,
  // --base-url) wins over the environment; the environment's key and URL win over a profile only
  // the environment (SCHEDCTL_PROFILE) or the default named.
  const PRECEDENCE: Array<{
    name: string;
    args: string[];
    env: Record<string, string>;
    server: 'A' | 'B' | 'C';
    key: 'A' | 'B' | 'ENV';
    note?: string;
  }> = [
    { name: 'nothing said: the default profile', args: [], env: {}, server: 'A', key: 'A' },
    {
      name: 'SCHEDCTL_API_KEY over the default profile',
      args: [],
      env: { SCHEDCTL_API_KEY: KEY_ENV },
      server: 'A',
      key: 'ENV',
      note: 'using the API key from SCHEDCTL_API_KEY (sk_…aaaa), not profile "alpha"\'s (sk_…abcd)',
    },
    {
      name: 'SCHEDCTL_BASE_URL over the default profile',
      args: [],
      env: { SCHEDCTL_BASE_URL: 'C' },
      server: 'C',
      key: 'A',
    },
    { name: 'SCHEDCTL_PROFILE over the default', args: [], env: { SCHEDCTL_PROFILE: 'beta' }, server: 'B', key: 'B' },
    {
      name: 'the key and URL from the environment over SCHEDCTL_PROFILE',
      args: [],
      env: { SCHEDCTL_PROFILE: 'beta', SCHEDCTL_API_KEY: KEY_ENV, SCHEDCTL_BASE_URL: 'C' },
      server: 'C',
      key: 'ENV',
    },
    {
      name: '--profile over the key and URL from the environment',
      args: ['--profile', 'beta'],
      env: { SCHEDCTL_API_KEY: KEY_ENV, SCHEDCTL_BASE_URL: 'C' },
      server: 'B',
      key: 'B',
      note: '--profile beta wins over SCHEDCTL_API_KEY and SCHEDCTL_BASE_URL in the environment',
    },
    {
      name: '--profile over SCHEDCTL_PROFILE',
      args: ['--profile', 'beta'],
      env: { SCHEDCTL_PROFILE: 'alpha' },
      server: 'B',
      key: 'B',
    },
    {
      name: '--base-url over --profile and SCHEDCTL_BASE_URL',
      args: ['--profile', 'beta', '--base-url', 'C'],
      env: { SCHEDCTL_BASE_URL: 'A' },
      server: 'C',
      key: 'B',
    },
    {
      name: '--base-url over SCHEDCTL_BASE_URL',
      args: ['--base-url', 'C'],
      env: { SCHEDCTL_BASE_URL: 'B' },
      server: 'C',
      key: 'A',
    },
  ];
  it.each(PRECEDENCE)('precedence: $name', async (row) => {
    const configDir = await twoProfiles();
    const servers = { A: serverA, B: serverB, C: serverC };
    const url = (v: string) => (v in servers ? servers[v as 'A' | 'B' | 'C'].baseUrl : v);
    const env = Object.fromEntries(Object.entries(row.env).map(([k, v]) => [k, k.endsWith('_URL') ? url(v) : v]));
    const counts = [serverA, serverB, serverC].map((s) => s.seen.length);
    const r = await runCli(['api', 'GET', '/v1/triggers', ...row.args.map(url)], { configDir, env });
    expect(r.code, show(r)).toBe(0);
    const target = servers[row.server];
    expect(
      [serverA, serverB, serverC].map((s, i) => s.seen.length - counts[i]!),
      show(r),
    ).toEqual([serverA, serverB, serverC].map((s) => (s === target ? 1 : 0)));
    const key = { A: KEY_A, B: KEY_B, ENV: KEY_ENV }[row.key];
    expect(target.seen.at(-1)!.headers.authorization).toBe(`Bearer ${key}`);
    if (row.note) expect(r.stderr).toContain(`note: ${row.note}`);
  });

  it('takes --base-url over SCHEDCTL_BASE_URL over the profile', async () => {
    const configDir = await twoProfiles();
    const viaEnv = await runCli(['api', 'GET', '/v1/triggers'], {
      configDir,
      env: { SCHEDCTL_BASE_URL: serverB.baseUrl },
    });
    expect(viaEnv.code, show(viaEnv)).toBe(0);
    expect(serverB.seen.at(-1)!.headers.authorization).toBe(`Bearer ${KEY_A}`);
    expect(viaEnv.stderr).toContain('using the base URL from SCHEDCTL_BASE_URL');
    // --quiet: only results and errors, no note.
    const quiet = await runCli(['-q', 'api', 'GET', '/v1/triggers'], {
      configDir,
      env: { SCHEDCTL_BASE_URL: serverB.baseUrl },
    });
    expect(quiet.code, show(quiet)).toBe(0);
    expect(quiet.stderr).toBe('');
    const countB = serverB.seen.length;
    const viaFlag = await runCli(['api', 'GET', '/v1/triggers', '--base-url', serverA.baseUrl], {
      configDir,
      env: { SCHEDCTL_BASE_URL: serverB.baseUrl },
    });
    expect(viaFlag.code, show(viaFlag)).toBe(0);
    expect(serverB.seen.length).toBe(countB);
  });

  it('exits 3 with a way out when no key is configured anywhere', async () => {
    const r = await runCli(['api', 'GET', '/v1/triggers']);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('no API key configured');
    expect(r.stderr).toContain('schedctl profile add');
    const j = await runCli(['api', 'GET', '/v1/triggers', '--json']);
    expect(j.json()).toMatchObject({ error: { code: 'NO_API_KEY', message: 'no API key configured' } });
  });

  it('refuses to send a key over plain http to a non-loopback host', async () => {
    const r = await runCli(['api', 'GET', '/v1/triggers', '--base-url', 'http://api.example.com'], {
      env: { SCHEDCTL_API_KEY: KEY_ENV },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('refusing to send the API key over plain http:// to api.example.com');
    const add = await runCli(['profile', 'add', 'x', '--key-stdin', '--base-url', 'http://10.0.0.8:8080'], {
      input: KEY_A,
    });
    expect(add.code).toBe(2);
    // The same code from every source of the URL: a script matches INSECURE_BASE_URL, not USAGE.
    const env = await runCli(['triggers', 'ls', '--json'], {
      env: { SCHEDCTL_API_KEY: KEY_ENV, SCHEDCTL_BASE_URL: 'http://example.com' },
    });
    expect(env.json()).toMatchObject({ error: { code: 'INSECURE_BASE_URL' } });
    const added = await runCli(['profile', 'add', 'x', '--key-stdin', '--base-url', 'http://10.0.0.8:8080', '--json'], {
      input: KEY_A,
    });
    expect(added.code).toBe(2);
    expect(added.json()).toMatchObject({ error: { code: 'INSECURE_BASE_URL' } });
  });
});
