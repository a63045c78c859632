/**
 * The README's figure for the packed package is what `npm pack` reports (kB of 1,000 bytes, as
 * npm prints them), within the 20 kB the README states; and the package stays under its limit
 * (500 kB, docs/development.md). What is packed is the current build's output (dist/meta.json
 * lists it: `npm run build` leaves older chunks behind, which prepack's clean build does not
 * pack), copied with the package's other files into a directory of its own and packed there with
 * `--ignore-scripts`: prepack's rebuild would rewrite dist/ under the other tests.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { tempDir } from '../helpers/cli.js';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../..');

describe("the README's package size", () => {
  it("matches npm pack's size within the margin it states", () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8').replace(/\s+/g, ' ');
    const said =
      /about (\d+) kB packed, as `npm pack` counts it, manual included; a test holds this figure to `npm pack` within (\d+) kB/.exec(
        readme,
      );
    expect(said, 'the README states the packed size and its margin').not.toBeNull();
    const [figure, margin] = [Number(said![1]), Number(said![2])];
    const copy = tempDir('schedctl-pack-');
    for (const path of ['package.json', 'README.md', 'LICENSE', 'bin', 'completions', 'docs'])
      if (existsSync(join(root, path))) cpSync(join(root, path), join(copy, path), { recursive: true });
    const meta = JSON.parse(readFileSync(join(root, 'dist/meta.json'), 'utf8')) as { outputs: Record<string, unknown> };
    for (const path of Object.keys(meta.outputs)) {
      mkdirSync(dirname(join(copy, path)), { recursive: true });
      cpSync(join(root, path), join(copy, path));
    }
    const r = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: copy, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const [packed] = JSON.parse(r.stdout) as Array<{ size: number }>;
    const kB = packed!.size / 1000;
    expect(Math.abs(kB - figure), `npm pack: ${kB.toFixed(1)} kB; the README: about ${figure} kB`).toBeLessThanOrEqual(
      margin,
    );
    expect(kB).toBeLessThanOrEqual(500);
  }, 60_000);
});
