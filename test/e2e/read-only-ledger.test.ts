/**
 * Commands that only read the ledger work on a ledger they cannot write (issue 44): `meetings ls`,
 * `meetings show` and `state status` on a ledger.db of mode 0444, then in a read-only directory
 * (no -wal or -shm beside it, none can be made). The tests run as root, whom modes do not stop: the
 * CLI then runs as `nobody`, owning the files, as a user would.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, copyFileSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { demoRouteFirstArgs } from '../helpers/args.js';
import { baseEnv, BIN, show } from '../helpers/cli.js';
import { useSandbox } from '../helpers/sandbox.js';

const t = useSandbox();
const NOBODY = 65534;
const asRoot = process.getuid?.() === 0;

/** A Node `nobody` can run (a copy when a directory above this one lets nobody through). */
function nodeFor(): string {
  for (let d = dirname(process.execPath); d !== dirname(d); d = dirname(d))
    if ((statSync(d).mode & 0o001) === 0) {
      const copy = join(mkdtempSync(join(tmpdir(), 'node-')), 'node');
      copyFileSync(process.execPath, copy);
      chmodSync(dirname(copy), 0o755);
      chmodSync(copy, 0o755);
      return copy;
    }
  return process.execPath;
}

/** Whether the CLI can run as `nobody` here (a checkout in a private directory: not). */
function nobodyCanRun(node: string): boolean {
  if (!asRoot) return true;
  const r = spawnSync(node, ['-e', `require('fs').readFileSync(${JSON.stringify(BIN)})`], { uid: NOBODY, gid: NOBODY });
  return r.status === 0;
}

function runAs(
  args: string[],
  dir: string,
  node: string,
): Promise<{ code: number | null; stdout: string; stderr: string; json(): any }> {
  return new Promise((resolve, reject) => {
    const env = {
      ...baseEnv(dir),
      SCHEDCTL_BASE_URL: t.sb.baseUrl,
      SCHEDCTL_API_KEY: t.sb.keys.full,
      NO_COLOR: '1',
      CI: 'true',
    };
    const child = spawn(asRoot ? node : process.execPath, [BIN, ...args], {
      env,
      ...(asRoot ? { uid: NOBODY, gid: NOBODY } : {}),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d));
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr, json: () => JSON.parse(stdout) }));
  });
}

describe('read-only commands on a ledger they cannot write', () => {
  it('meetings ls, meetings show and state status read a 0444 ledger.db, then a read-only directory', async (ctx) => {
    const node = nodeFor();
    if (!nobodyCanRun(node)) ctx.skip();
    const email = 'read-only@acme.example';
    const r = await t.sb.cli([...demoRouteFirstArgs(email), '--json'], { configDir: t.dir });
    expect(r.code, show(r)).toBe(0);
    const id = r.json().meeting.id as string;
    const dir = t.dir;
    if (asRoot) {
      chownSync(dir, NOBODY, NOBODY);
      for (const f of readdirSync(dir, { recursive: true }) as string[]) chownSync(join(dir, f), NOBODY, NOBODY);
    }
    chmodSync(join(dir, 'ledger.db'), 0o444);
    const check = async (where: string) => {
      const ls = await runAs(['meetings', 'ls', '--json'], dir, node);
      expect(ls.code, `${where}\n${ls.stderr}`).toBe(0);
      expect(ls.json().map((m: { id: string }) => m.id)).toEqual([id]);
      const one = await runAs(['meetings', 'show', id, '--json'], dir, node);
      expect(one.code, `${where}\n${one.stderr}`).toBe(0);
      expect(one.stdout).toContain(id);
      const status = await runAs(['state', 'status', '--json'], dir, node);
      expect(status.code, `${where}\n${status.stderr}`).toBe(0);
      expect(status.json().counts.meetings).toBe(1);
    };
    await check('ledger.db 0444');
    for (const f of ['ledger.db-wal', 'ledger.db-shm']) rmSync(join(dir, f), { force: true });
    chmodSync(dir, 0o555);
    try {
      await check('read-only directory');
      // A command that writes is refused before sending anything.
      const again = await runAs([...demoRouteFirstArgs('other@acme.example'), '--json'], dir, node);
      expect(again.code).toBe(1);
      expect(again.json().error.code).toBe('STATE_WRITE');
    } finally {
      chmodSync(dir, 0o755);
    }
    expect((await t.sb.state()).meetings).toHaveLength(1);
  });
});
