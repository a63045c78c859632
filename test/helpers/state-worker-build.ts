/** Bundles state-worker.ts into one .mjs file that plain `node` (any user) can run. */
import { chmodSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

export async function buildStateWorker(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'schedctl-state-worker-'));
  // Readable by all: one test runs the worker as another user.
  chmodSync(dir, 0o755);
  const outfile = join(dir, 'worker.mjs');
  await build({
    entryPoints: [fileURLToPath(new URL('./state-worker.ts', import.meta.url))],
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile,
    logLevel: 'error',
    // proper-lockfile is CommonJS: in an ESM bundle its require() of node: built-ins needs a real require.
    banner: { js: "import{createRequire as __cr}from'node:module';const require=__cr(import.meta.url);" },
  });
  chmodSync(outfile, 0o644);
  return outfile;
}
