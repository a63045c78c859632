/**
 * Cold start and install size are features (README "Performance"); these tests hold the
 * structure that makes them fast, with evidence instead of timings: what --help loads,
 * and what the published package depends on.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const HEAVY = ['zod', 'luxon', 'chalk', 'ky', 'conf', '@inquirer', 'ora', 'cli-table3', 'undici'];

interface Meta {
  outputs: Record<string, { inputs: Record<string, unknown> }>;
}

function loadedFiles(args: string[]): string[] {
  const log = join(mkdtempSync(join(tmpdir(), 'schedctl-loads-')), 'loads.txt');
  const r = spawnSync(process.execPath, ['--import', join(root, 'test/helpers/record-loads.mjs'), join(root, 'bin/schedctl.js'), ...args], {
    env: { PATH: process.env.PATH, SCHEDCTL_LOAD_LOG: log, SCHEDCTL_CONFIG_DIR: join(tmpdir(), 'schedctl-no-config'), NO_COLOR: '1' },
    encoding: 'utf8',
  });
  expect(r.status, r.stderr).toBe(0);
  return [
    ...new Set(
      readFileSync(log, 'utf8')
        .split('\n')
        .filter((u) => u.startsWith('file:'))
        .map((u) => relative(root, fileURLToPath(u))),
    ),
  ];
}

function packagesIn(files: string[]): Set<string> {
  const meta = JSON.parse(readFileSync(join(root, 'dist/meta.json'), 'utf8')) as Meta;
  const pkgs = new Set<string>();
  for (const file of files) {
    const out = meta.outputs[file];
    if (!out) continue;
    for (const input of Object.keys(out.inputs)) {
      const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input);
      if (m?.[1]) pkgs.add(m[1]);
    }
  }
  return pkgs;
}

describe('cold start', () => {
  it('`schedctl --version` answers without loading the CLI bundle at all', () => {
    const files = loadedFiles(['--version']);
    expect(files).toEqual(['bin/schedctl.js']);
  });

  it.each([['--help'], ['book', '--help'], ['--version', '--json']])('`schedctl %s` loads commander and nothing heavy', (...args) => {
    const files = loadedFiles(args);
    expect(files).toContain('dist/cli.js');
    expect(files.every((f) => f.startsWith('dist/') || f.startsWith('bin/'))).toBe(true);
    const pkgs = packagesIn(files);
    expect([...pkgs].sort()).toEqual(['commander']);
    for (const heavy of HEAVY) expect(pkgs.has(heavy)).toBe(false);
  });

  it('keeps the sandbox out of the path of other commands', () => {
    const meta = JSON.parse(readFileSync(join(root, 'dist/meta.json'), 'utf8')) as Meta;
    const files = loadedFiles(['--help']);
    const sandboxOutputs = Object.entries(meta.outputs)
      .filter(([, o]) => Object.keys(o.inputs).some((i) => i.startsWith('src/sandbox/') && !i.endsWith('main.ts')))
      .map(([f]) => f);
    expect(sandboxOutputs.length).toBeGreaterThan(0);
    for (const f of sandboxOutputs) expect(files).not.toContain(f);
  });
});

describe('the published package', () => {
  it('has no runtime dependencies: everything is bundled into dist/', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(pkg.dependencies ?? {}).toEqual({});
    expect(pkg.optionalDependencies ?? {}).toEqual({});
    expect(pkg.peerDependencies ?? {}).toEqual({});
    const files = pkg.files as string[];
    expect(files).toEqual(expect.arrayContaining(['bin/', 'dist/', 'completions/']));
  });

  it('packs bin, dist and completions, and no sources or tests', () => {
    const r = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const [packed] = JSON.parse(r.stdout) as Array<{ files: Array<{ path: string }> }>;
    const paths = packed!.files.map((f) => f.path);
    expect(paths).toContain('bin/schedctl.js');
    expect(paths).toContain('dist/cli.js');
    expect(paths).toContain('completions/schedctl.bash');
    expect(paths.some((p) => p.startsWith('src/') || p.startsWith('test/') || p === 'dist/meta.json')).toBe(false);
  });
});
