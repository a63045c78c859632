import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';

const PROCESSES = 8;
const DRAWS = 5;
const LIMIT = 10;
// 1 s: the check is on the instants the budget recorded, so the window can be short without timing risk.
const WINDOW_MS = 1000;

let worker: string;

beforeAll(async () => {
  worker = join(mkdtempSync(join(tmpdir(), 'schedctl-budget-worker-')), 'budget-worker.mjs');
  await build({
    entryPoints: [fileURLToPath(new URL('../helpers/budget-worker.ts', import.meta.url))],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile: worker,
    logLevel: 'silent',
    // proper-lockfile is CommonJS: its require() of Node built-ins needs a real require in ESM.
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  });
});

function run(dir: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [worker, dir, String(DRAWS), String(LIMIT), String(WINDOW_MS)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('rate budget across processes', () => {
  it(`never lets a rolling window hold more than the limit, with ${PROCESSES} processes drawing at once`, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'schedctl-rate-shared-'));
    const outcomes = await Promise.all(Array.from({ length: PROCESSES }, () => run(dir)));
    const times: number[] = [];
    for (const o of outcomes) {
      expect(o.code, `a worker failed:\nstdout: ${o.stdout}\nstderr: ${o.stderr}`).toBe(0);
      const lines = o.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { at?: number; done?: boolean });
      expect(lines.at(-1), `stdout: ${o.stdout}\nstderr: ${o.stderr}`).toEqual({ done: true });
      for (const l of lines) if (l.at !== undefined) times.push(l.at);
      // Every draw went through the shared ledger: none fell back to counting its own process only.
      expect(o.stderr, o.stderr).not.toContain('cannot be used');
    }
    expect(times).toHaveLength(PROCESSES * DRAWS);
    times.sort((a, b) => a - b);
    const crowded: string[] = [];
    for (let i = 0; i + LIMIT < times.length; i++) {
      // LIMIT + 1 draws within one window would be a 429 from the server.
      if (times[i + LIMIT]! - times[i]! < WINDOW_MS)
        crowded.push(`draws ${i}..${i + LIMIT} within ${times[i + LIMIT]! - times[i]!} ms`);
    }
    expect(crowded).toEqual([]);
  }, 60_000);
});
