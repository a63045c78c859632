/**
 * Secret hygiene. runCli already fails any run whose stdout or stderr contains a registered
 * key (the whole suite); these tests drive the paths most likely to leak one: --debug logs,
 * --json documents, API errors after 401/403, the files schedctl writes, keys typed as
 * arguments, and the key store's permissions.
 */
import { ledgerRows } from '../helpers/ledger-db.js';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoFireArgs, demoRouteFirstArgs } from '../helpers/args.js';
import { assertNoSecretsInFiles, registerSecret, runCli, show, tempDir } from '../helpers/cli.js';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';

const T = 'Inbound demo request';
/** A key that is not the one in use: typed by mistake as an argument, it must not be printed back either. */
const STRAY_KEY = 'sk_live_strayprodkey_9f8e7d6c5b4a';
registerSecret(STRAY_KEY);

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(async () => sb.close());

const mode = (path: string) => (statSync(path).mode & 0o777).toString(8);

describe('keys never appear in output', () => {
  it('every command with --debug and --json logs requests but never the key', async () => {
    const dir = tempDir();
    const run = async (args: string[], expectCode = 0) => {
      const r = await sb.cli([...args, '--debug', '--json'], { configDir: dir });
      expect(r.code, show(r)).toBe(expectCode);
      expect(r.stdout + r.stderr).not.toContain(sb.keys.full);
      return r;
    };
    const triggers = await run(['triggers', 'ls']);
    expect(triggers.stderr, 'the debug log is on').toMatch(/debug: → GET \/v1\/triggers/);
    await run(['triggers', 'show', T]);
    const fired = (await run(demoFireArgs())).json();
    await run(['events', 'ls', '--limit', '2']);
    await run(['events', 'show', 'intro-call']);
    const slots = (await run(['slots', fired.outcome.schedulingLinkId, '--days', '14'])).json();
    const meeting = (
      await run([
        'book',
        fired.outcome.schedulingLinkId,
        '--start',
        slots.slots[0],
        '--reservation',
        slots.reservationId,
        '--email',
        'ada@acme.example',
        '--execution',
        fired.executionId,
      ])
    ).json().meeting;
    await run(['reschedule', meeting.id, '--start', slots.slots[1]]);
    await run(demoRouteFirstArgs('grace@acme.example', 'americas'));
    await run(['api', 'GET', '/v1/scheduling/events']);
    await run(['smoke']);
    const all = (await sb.state()).requests;
    expect(
      all.every((q) => q.key === 'full'),
      'every request used the full key',
    ).toBe(true);
    assertNoSecretsInFiles(dir);
  }, 60_000);

  it('errors after 401 and 403 never echo the key', async () => {
    const dir = tempDir();
    const cases = [
      ['revoked', ['triggers', 'ls'], 3],
      ['revoked', ['events', 'show', 'intro-call'], 3],
      [
        'revoked',
        [
          'book',
          'intro-call',
          '--start',
          '2030-01-07T10:00:00Z',
          '--reservation',
          '3f0e5f1e-6a43-4d5c-9c1e-2b7a0c9d1e11',
          '--email',
          'a@acme.example',
        ],
        3,
      ],
      ['readOnly', demoFireArgs('a@acme.example'), 3],
      ['readOnly', demoRouteFirstArgs('a@acme.example'), 3],
    ] as const;
    // The first command of each key (401 and 403) in text, --json and --debug; the others in one
    // of them in turn (every output of every run is checked for the keys: test/helpers/cli.ts).
    const modes = [[], ['--json'], ['--debug']];
    for (const [i, [key, args, code]] of cases.entries()) {
      const first = i === 0 || (key === 'readOnly' && cases[i - 1]![0] !== 'readOnly');
      for (const extra of first ? modes : [modes[i % modes.length]!]) {
        const r = await sb.cli([...args, ...extra], { configDir: dir, key });
        expect(r.code, show(r)).toBe(code);
        expect(r.stderr + r.stdout).toMatch(/INVALID_API_KEY|MISSING_SCOPE/);
        expect(r.stdout + r.stderr).not.toContain(sb.keys[key]);
      }
    }
    assertNoSecretsInFiles(dir);
  }, 60_000);

  it('a key-shaped argument echoed back by the server is masked in errors and debug logs', async () => {
    for (const extra of [[], ['--json'], ['--debug']]) {
      const r = await sb.cli(['events', 'show', STRAY_KEY, ...extra], { configDir: tempDir() });
      expect(r.code, show(r)).toBe(4);
      expect(r.stdout + r.stderr).toContain('sk_…');
    }
  });
});

describe('files schedctl writes', () => {
  it('journal and remembered outcomes hold no key after fire, book and a lost booking response', async () => {
    await sb.reset();
    const dir = tempDir();
    const add = await sb.cli(['profile', 'add', 'sbx', '--key-stdin', '--base-url', sb.baseUrl], {
      configDir: dir,
      input: `${sb.keys.full}\n`,
      env: { SCHEDCTL_API_KEY: undefined },
    });
    expect(add.code, show(add)).toBe(0);
    const cli = (args: string[]) =>
      sb.cli([...args, '--profile', 'sbx', '--json'], {
        configDir: dir,
        env: { SCHEDCTL_API_KEY: undefined, SCHEDCTL_BASE_URL: undefined },
      });

    const ok = await cli(demoRouteFirstArgs());
    expect(ok.code, show(ok)).toBe(0);
    // A lost response: the sandbox books, then drops the connection.
    await sb.fault({ method: 'POST', path: '/v1/scheduling/meetings', fault: 'drop-after-commit' });
    const lost = await cli(demoRouteFirstArgs('grace@acme.example', 'americas'));
    expect(lost.code, show(lost)).toBe(7);
    expect(statSync(join(dir, 'ledger.db')).size).toBeGreaterThan(0);
    expect(ledgerRows<{ outcome: string }>(dir, 'attempts').map((e) => e.outcome)).toContain('unknown');
    expect((await sb.state()).meetings).toHaveLength(2);
    assertNoSecretsInFiles(dir);
  }, 30_000);

  it('the key store is 0600 in a 0700 directory, after add, rewrite and remove', async () => {
    const dir = join(tempDir(), 'nested', 'schedctl');
    const store = join(dir, 'config.json');
    const cli = (args: string[], input = '') => runCli(args, { configDir: dir, input });
    const check = () => {
      expect(mode(dir)).toBe('700');
      expect(mode(store)).toBe('600');
    };
    // No API at the default base URL (and one key is revoked): saved without the key check.
    expect((await cli(['profile', 'add', 'one', '--key-stdin', '--no-verify'], `${sb.keys.full}\n`)).code).toBe(0);
    check();
    expect((await cli(['profile', 'add', 'two', '--key-stdin', '--no-verify'], `${sb.keys.readOnly}\n`)).code).toBe(0);
    check();
    expect(
      (
        await cli(
          ['profile', 'add', 'one', '--key-stdin', '--no-verify', '--default', '--force'],
          `${sb.keys.revoked}\n`,
        )
      ).code,
    ).toBe(0);
    check();
    expect((await cli(['profile', 'use', 'two'])).code).toBe(0);
    check();
    expect((await cli(['profile', 'rm', 'one'])).code).toBe(0);
    check();
  });

  it('profile show and profile ls mask the key, in text and in --json', async () => {
    const dir = tempDir();
    const cli = (args: string[], input = '') => runCli(args, { configDir: dir, input });
    expect((await cli(['profile', 'add', 'sbx', '--key-stdin', '--no-verify'], `${sb.keys.full}\n`)).code).toBe(0);
    const tail = sb.keys.full.slice(-4);
    for (const args of [
      ['profile', 'show'],
      ['profile', 'show', 'sbx'],
      ['profile', 'ls'],
      ['profile', 'show', '--json'],
      ['profile', 'ls', '--json'],
    ]) {
      const r = await cli(args);
      expect(r.code, show(r)).toBe(0);
      expect(r.stdout, show(r)).toContain(`sk_…${tail}`);
      expect(r.stdout + r.stderr).not.toContain(sb.keys.full);
    }
  });
});

describe('a key passed as an argument', () => {
  const dir = tempDir();
  it.each([
    ['profile add x --api-key=KEY', ['profile', 'add', 'x', `--api-key=${STRAY_KEY}`]],
    ['profile add x --api-key KEY', ['profile', 'add', 'x', '--api-key', STRAY_KEY]],
    ['profile add x KEY', ['profile', 'add', 'x', STRAY_KEY]],
    ['profile add x --key KEY', ['profile', 'add', 'x', '--key', STRAY_KEY]],
  ])('is refused and not echoed: %s', async (_label, args) => {
    const r = await runCli(args, { configDir: dir });
    expect(r.code, show(r)).toBe(2);
    expect(r.stderr).toMatch(/^error: API keys are not accepted as command-line arguments/);
    expect(r.stdout + r.stderr).not.toContain(STRAY_KEY);
  });

  it.each([
    ['unknown option with =', ['events', 'ls', `--token=${STRAY_KEY}`]],
    ['unknown option, separate value', ['triggers', 'ls', '--token', STRAY_KEY]],
    ['unknown command', [STRAY_KEY]],
    ['excess argument', ['events', 'ls', STRAY_KEY]],
    ['unknown option with --json', ['events', 'ls', `--api-key=${STRAY_KEY}`, '--json']],
  ])("commander's own usage errors do not echo it: %s", async (_label, args) => {
    const r = await runCli(args, { configDir: dir });
    expect(r.code, show(r)).toBe(2);
    expect(r.stderr).toMatch(/^error: /);
    expect(r.stdout + r.stderr).not.toContain(STRAY_KEY);
    assertNoSecretsInFiles(dir);
  });
});
