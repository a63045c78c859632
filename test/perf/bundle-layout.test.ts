/**
 * The layout rule of the bundle (scripts/build.mjs, "THE RULE"): the front (dist/cli.cjs)
 * holds commander, the command definitions and the few modules they need; everything else
 * lives once, in the back (dist/esm/). Read from the build's metafile, so a violation fails
 * here with the rule named, not later as a puzzling `instanceof` miss.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const RULE =
  'front/back rule (scripts/build.mjs): a definition in src/commands/ may import only commander, ./action.js, ' +
  'src/limits.ts and types; reach a run module through src/commands/runners.ts';

/** Modules the front may hold besides src/commands/: the CLI shell, the context, and pure constants/functions. */
const FRONT_ALLOWED = new Set([
  'src/cli.ts',
  'src/context.ts',
  'src/version.ts',
  'src/limits.ts',
  'src/config/paths.ts',
  'src/config/mask.ts',
]);
/** Pure modules (no classes, no state) that may exist in both halves. */
const SHARED_PURE = new Set(['src/limits.ts', 'src/config/paths.ts', 'src/config/mask.ts', 'src/version.ts']);

interface Meta {
  outputs: Record<string, { inputs: Record<string, unknown> }>;
}
const meta = (): Meta => JSON.parse(readFileSync(join(root, 'dist/meta.json'), 'utf8')) as Meta;
const srcInputs = (inputs: Record<string, unknown>) => Object.keys(inputs).filter((i) => i.startsWith('src/'));

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? walk(join(dir, d.name)) : [join(dir, d.name)],
  );
}

describe('bundle layout', () => {
  it('keeps the front to the command definitions and the modules they need', () => {
    const front = meta().outputs['dist/cli.cjs'];
    expect(front, 'dist/cli.cjs in dist/meta.json (run npm run build)').toBeDefined();
    const intruders = srcInputs(front!.inputs).filter((i) => !i.startsWith('src/commands/') && !FRONT_ALLOWED.has(i));
    expect(intruders, RULE).toEqual([]);
    const packages = Object.keys(front!.inputs).filter(
      (i) => i.includes('node_modules/') && !i.includes('node_modules/commander/'),
    );
    expect(packages, RULE).toEqual([]);
  });

  it('bundles every source module once, so each error class exists once', () => {
    const seen = new Map<string, string[]>();
    for (const [file, out] of Object.entries(meta().outputs)) {
      for (const input of srcInputs(out.inputs)) seen.set(input, [...(seen.get(input) ?? []), file]);
    }
    const twice = [...seen]
      .filter(([input, files]) => files.length > 1 && !SHARED_PURE.has(input))
      .map(([i, f]) => `${i}: ${f.join(', ')}`);
    expect(twice, RULE).toEqual([]);
    // The classes `instanceof` is asked about: each defined in exactly one output file.
    const classFiles = walk(join(root, 'src'))
      .filter((f) => f.endsWith('.ts') && /\bclass \w+ extends \w*Error\b/.test(readFileSync(f, 'utf8')))
      .map((f) => relative(root, f));
    expect(classFiles).toContain('src/errors.ts');
    for (const file of classFiles) {
      if (seen.has(file)) expect(seen.get(file), `${file} bundled more than once; ${RULE}`).toHaveLength(1);
    }
  });

  it('puts the team backend in one chunk: a command with a team state loads it as two files, not six', () => {
    // src/state/postgres/backend.ts says why: what admin.ts, run-log.ts and services.ts use of it
    // comes through backend.ts, so that every module below is reached by the same dynamic imports.
    const team = [
      'src/state/postgres/backend.ts',
      'src/state/postgres/connect.ts',
      'src/state/postgres/sql.ts',
      'src/state/postgres/ledger-spool.ts',
      'src/state/postgres/schema.ts',
      'src/state/postgres/locks.ts',
      'src/state/postgres/rate-budget.ts',
      'src/state/backend.ts',
    ];
    const homes = new Set(
      team.map((m) => Object.entries(meta().outputs).find(([, o]) => m in o.inputs)?.[0] ?? `${m}: in no output`),
    );
    expect([...homes]).toHaveLength(1);
  });

  it('keeps pure shared modules free of imports and classes', () => {
    for (const file of SHARED_PURE) {
      const text = readFileSync(join(root, file), 'utf8');
      expect(
        /^import (?!type)(?![^;]*from 'node:)/m.test(text),
        `${file} is shared by both halves: it must import nothing`,
      ).toBe(false);
      expect(/\bclass\b/.test(text), `${file} is shared by both halves: no classes`).toBe(false);
    }
  });

  it('keeps the runners map generated from src/run/ (scripts/gen-runners.mjs)', () => {
    const check = spawnSync(process.execPath, [join(root, 'scripts/gen-runners.mjs'), '--check'], { encoding: 'utf8' });
    expect(check.status, check.stderr).toBe(0);
  });

  it('gives every run module in the runners map a definition, and no definition imports src/run/', () => {
    const runners = readFileSync(join(root, 'src/commands/runners.ts'), 'utf8');
    const targets = [...runners.matchAll(/import\('\.\.\/run\/([\w/-]+)\.js'\)/g)].map((m) => m[1]);
    expect(targets.length).toBeGreaterThan(10);
    for (const file of walk(join(root, 'src/commands')).filter((f) => !f.endsWith('runners.ts'))) {
      const text = readFileSync(file, 'utf8');
      const statics = [...text.matchAll(/^import (?!type )[^;]*from '([^']+)'/gm)].map((m) => m[1]!);
      const allowed = (spec: string) => {
        if (spec === 'commander') return true;
        const target = relative(root, resolve(dirname(file), spec)).replace(/\.js$/, '.ts');
        return target.startsWith('src/commands/') || target === 'src/limits.ts';
      };
      expect(
        statics.filter((s) => !allowed(s)),
        `${relative(root, file)}: ${RULE}`,
      ).toEqual([]);
      expect(/import\(/.test(text), `${relative(root, file)} has its own import(): ${RULE}`).toBe(false);
    }
  });
});
