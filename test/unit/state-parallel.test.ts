/**
 * The state store across real processes: a bundled worker (test/helpers/state-worker.ts) is
 * spawned many times at once, killed mid-write, and run as another user.
 */
import { ledgerRows } from '../helpers/ledger-db.js';
import { spawn } from 'node:child_process';
import { chmodSync, copyFileSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { openState } from '../../src/state/index.js';
import { buildStateWorker } from '../helpers/state-worker-build.js';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}
let worker: string;
beforeAll(async () => {
  worker = await buildStateWorker();
});

/**
 * A Node another user can run: this one, unless a directory above it lets nobody else through
 * (a checkout cloned into a private `mktemp -d` directory, its Node in node_modules); then a copy
 * of it in the run's temporary directory (mode 1777).
 */
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

function run(args: string[], opts: { env?: Record<string, string>; uid?: number } = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = { ...process.env, ...opts.env };
    // A worker run as another user cannot read preloads inside the checkout (NODE_OPTIONS' --import
    // of the clock-ahead run): the checkout may sit in a private directory. It needs no clock.
    if (opts.uid !== undefined) delete env.NODE_OPTIONS;
    const child = spawn(opts.uid !== undefined ? nodeFor() : process.execPath, [worker, ...args], {
      env,
      ...(opts.uid !== undefined ? { uid: opts.uid, gid: opts.uid } : {}),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d));
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
/** On failure, the assertion shows what the process printed. */
const ok = (r: Run) => expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
const read = (dir: string, name: string) => JSON.parse(readFileSync(join(dir, name), 'utf8'));
const tempDir = () => mkdtempSync(join(tmpdir(), 'state-parallel-'));

describe('state across processes', () => {
  it('loses no profile, journal entry, outcome or meeting when 12 processes write at once', async () => {
    const dir = join(tempDir(), 'schedctl');
    const N = 12;
    const PER = 4;
    const runs = await Promise.all(Array.from({ length: N }, (_, w) => run([dir, 'mixed', `w${w}`, String(PER)])));
    runs.forEach(ok);
    const expected = Array.from({ length: N }, (_, w) => Array.from({ length: PER }, (_, i) => `w${w}-${i}`))
      .flat()
      .sort();
    expect(Object.keys(read(dir, 'config.json').profiles).sort()).toEqual(expected);
    const entries = ledgerRows<{ reservationId: string; sentAt: string | null }>(dir, 'attempts');
    expect(entries.map((e) => e.reservationId.replace('-r', '-')).sort()).toEqual(expected);
    expect(entries.every((e) => typeof e.sentAt === 'string')).toBe(true);
    expect(ledgerRows(dir, 'outcomes')).toHaveLength(N * PER);
    expect(ledgerRows(dir, 'meetings')).toHaveLength(N * PER);
  });

  it('leaves a readable journal holding every reported write when a writer is killed mid-write, and recovers its lock', async () => {
    const dir = tempDir();
    const child = spawn(process.execPath, [worker, dir, 'loop', 'k'], {
      env: { ...process.env, STATE_STALE_MS: '2000' },
    });
    let out = '';
    await new Promise<void>((resolve) => {
      child.stdout.on('data', (d: Buffer) => {
        out += d;
        // Killed at an arbitrary point of a write after a few have completed.
        if (out.split('\n').length > 20 && child.exitCode === null) {
          child.kill('SIGKILL');
          resolve();
        }
      });
    });
    await new Promise((resolve) => child.on('close', resolve));
    const reported = out
      .trim()
      .split('\n')
      .filter((l) => l.startsWith('ok ')).length;
    const entries = ledgerRows(dir, 'attempts');
    expect(entries.length).toBeGreaterThanOrEqual(reported);
    // A lock left by the killed process turns stale and is taken over by the next writer.
    const state = openState(dir, { now: () => new Date('2031-03-01T12:00:00.000Z'), staleMs: 2000, lockWaitMs: 6000 });
    await state.journal.remove('none');
    await state.profiles.set('after', { baseUrl: 'http://127.0.0.1:1', apiKey: 'k' });
    expect(await state.profiles.names()).toEqual(['after']);
  });

  it('reads a directory it may not write to, and fails a write with StateWriteError', async () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, 'config.json'),
      JSON.stringify({ profiles: { p: { baseUrl: 'http://127.0.0.1:1', apiKey: 'k' } } }),
      { mode: 0o644 },
    );
    // A ledger document of a schedctl from before the tables: read in place (it cannot be moved in here).
    writeFileSync(join(dir, 'journal.json'), JSON.stringify({ entries: [] }), { mode: 0o644 });
    // root writes anywhere: then the worker runs as nobody in a root-owned 0755 directory.
    const asRoot = process.getuid?.() === 0;
    chmodSync(dir, asRoot ? 0o755 : 0o555);
    const r = await run([dir, 'probe', 'ro'], asRoot ? { uid: 65534 } : {});
    ok(r);
    const result = JSON.parse(r.stdout) as {
      counts: Record<string, number>;
      write: { name: string; code: string; message: string };
    };
    expect(result.counts).toEqual({ profiles: 1, journal: 0, outcomes: 0, meetings: 0 });
    expect(result.write).toMatchObject({ name: 'StateWriteError', code: 'STATE_WRITE' });
    expect(result.write.message).toMatch(
      new RegExp(`^cannot write ${dir}/config\\.json \\(EACCES: permission denied\\): nothing was saved$`),
    );
    chmodSync(dir, 0o700);
  });
});
