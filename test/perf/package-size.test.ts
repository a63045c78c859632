/**
 * The README's figure for the packed package is what `npm pack` reports (kB of 1,000 bytes, as
 * npm prints them), within the 20 kB the README states; and the package stays under its limit
 * (550 kB, docs/development.md). `--ignore-scripts`: the dist/ already built is packed as it is,
 * without prepack's clean rebuild (which would rewrite dist/ under the other tests).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
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
    const r = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const [packed] = JSON.parse(r.stdout) as Array<{ size: number }>;
    const kB = packed!.size / 1000;
    expect(Math.abs(kB - figure), `npm pack: ${kB.toFixed(1)} kB; the README: about ${figure} kB`).toBeLessThanOrEqual(
      margin,
    );
    expect(kB).toBeLessThan(550);
  }, 60_000);
});
