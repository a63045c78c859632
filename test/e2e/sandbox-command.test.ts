/**
 * `schedctl sandbox` as users and scripts start it: the one-line JSON contract, the banner,
 * `--profile` saving a ready-to-use profile, and a clean shutdown on SIGINT/SIGTERM.
 */
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { relative } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, baseEnv, registerSecret, runCli, show, tempDir } from '../helpers/cli.js';

let children: ChildProcessWithoutNullStreams[] = [];
afterEach(() => {
  for (const c of children) c.kill('SIGKILL');
  children = [];
});

/** Starts the sandbox and resolves with its first stdout line (or the whole banner up to "Press Ctrl+C"). */
/** Starts `schedctl sandbox`; resolves once `until(stdout, stderr)` holds. */
function start(args: string[], configDir: string, until: (out: string, err: string) => boolean) {
  const child = spawn(process.execPath, [BIN, 'sandbox', '--port', '0', ...args], { env: baseEnv(configDir) });
  children.push(child);
  let out = '';
  let err = '';
  return new Promise<{ child: ChildProcessWithoutNullStreams; out: string; err: () => string }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`sandbox did not start\n${out}\n${err}`)), 10_000);
    const check = () => {
      if (!until(out, err)) return;
      clearTimeout(timer);
      resolve({ child, out, err: () => err });
    };
    child.stdout.on('data', (d) => {
      out += d;
      check();
    });
    child.stderr.on('data', (d) => {
      err += d;
      check();
    });
  });
}

const exited = (child: ChildProcessWithoutNullStreams) =>
  new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));

describe('schedctl sandbox', () => {
  it('prints exactly one JSON line with baseUrl and keys, serves the API, and stops cleanly on SIGTERM', async () => {
    const { child, out } = await start(['--json'], tempDir(), (o) => o.includes('\n'));
    const doc = JSON.parse(out.trim()) as {
      baseUrl: string;
      keys: { full: string; readOnly: string; revoked: string };
    };
    registerSecret(doc.keys.full, doc.keys.readOnly, doc.keys.revoked);
    expect(Object.keys(doc).sort()).toEqual(['baseUrl', 'keys']);
    expect(doc.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(Object.keys(doc.keys).sort()).toEqual(['full', 'readOnly', 'revoked']);
    const r = await runCli(['triggers', 'ls', '--json'], {
      env: { SCHEDCTL_BASE_URL: doc.baseUrl, SCHEDCTL_API_KEY: doc.keys.full },
    });
    expect(r.code, show(r)).toBe(0);
    expect(r.json().triggers.length).toBeGreaterThanOrEqual(3);
    const code = exited(child);
    child.kill('SIGTERM');
    expect(await code).toBe(0);
  });

  it('saves a profile with --profile so other commands work right away, and exits 0 on SIGINT', async () => {
    const configDir = tempDir();
    // The profile is saved once the sandbox listens: its note comes after the banner.
    const { child, out } = await start(
      ['--profile', 'sbx'],
      configDir,
      (o, e) => o.includes('Press Ctrl+C') && e.includes('saved profile "sbx"'),
    );
    expect(out).toContain('schedctl sandbox listening on http://127.0.0.1:');
    expect(out).toMatch(/full key\s+sk_/);
    // "Try it" runs as printed from this checkout (no bare `schedctl` on PATH), with the saved profile, no key inline.
    const tryLines = out
      .slice(out.indexOf('Try it:'))
      .split('\n')
      .slice(1)
      .filter((l) => l.startsWith('  '));
    // Installed (npm run test:installed), schedctl is on PATH as `schedctl`: the banner says so.
    const installed = /[\\/]node_modules[\\/]/.test(BIN);
    // The Node the CLI ran with (this one): the checkout's own is named, the PATH's may be older.
    const node = /[\\/]node_modules[\\/]/.test(process.execPath) ? relative(process.cwd(), process.execPath) : 'node';
    const runAs = installed ? 'schedctl' : `${node} ${relative(process.cwd(), BIN)}`;
    expect(tryLines[0]).toBe(`  ${runAs} --profile sbx triggers ls`);
    expect(out.slice(out.indexOf('Try it:'))).not.toContain('SCHEDCTL_API_KEY');
    const line = installed ? tryLines[0]!.trim().replace(/^schedctl/, `node ${BIN}`) : tryLines[0]!.trim();
    const tried = spawnSync('sh', ['-c', line], { env: baseEnv(configDir), encoding: 'utf8' });
    expect(tried.status, tried.stderr).toBe(0);
    expect(tried.stdout).toContain('Inbound demo request');
    const ls = await runCli(['profile', 'ls', '--json'], { configDir });
    expect(ls.json().profiles).toEqual([
      expect.objectContaining({
        name: 'sbx',
        isDefault: true,
        baseUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
      }),
    ]);
    const r = await runCli(['events', 'ls', '--json'], { configDir });
    expect(r.code, show(r)).toBe(0);
    expect(r.json().events.length).toBeGreaterThan(0);
    const code = exited(child);
    child.kill('SIGINT');
    expect(await code).toBe(0);
  });
});
