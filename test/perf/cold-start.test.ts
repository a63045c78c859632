/**
 * Cold start and install size are features (README "Performance"); these tests hold the
 * structure that makes them fast, with evidence instead of timings: what --help loads,
 * and what the published package depends on.
 */
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/server.js';

const root = resolve(import.meta.dirname, '../..');
const HEAVY = [
  'zod',
  'luxon',
  'chalk',
  'ky',
  '@inquirer',
  'ora',
  'cli-table3',
  'undici',
  'https-proxy-agent',
  'agent-base',
  'chrono-node',
  '@modelcontextprotocol',
  'proper-lockfile',
  'conf',
  'jq-wasm',
];

interface Meta {
  outputs: Record<string, { inputs: Record<string, unknown> }>;
}

const recorded = (log: string) => [...new Set(readFileSync(log, 'utf8').split('\n').filter(Boolean))];
const recordingRun = (args: string[]) => [
  '--import',
  join(root, 'test/helpers/record-loads.mjs'),
  join(root, 'bin/schedctl.js'),
  ...args,
];
const recordingEnv = (log: string) => ({
  PATH: process.env.PATH,
  SCHEDCTL_LOAD_LOG: log,
  SCHEDCTL_CONFIG_DIR: join(tmpdir(), 'schedctl-no-config'),
  NO_COLOR: '1',
});
const newLog = () => join(mkdtempSync(join(tmpdir(), 'schedctl-loads-')), 'loads.txt');

function loadedFiles(args: string[]): string[] {
  const log = newLog();
  const r = spawnSync(process.execPath, recordingRun(args), { env: recordingEnv(log), encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return recorded(log)
    .filter((u) => u.startsWith('file:'))
    .map((u) => relative(root, fileURLToPath(u)));
}

/** Every module URL (files and node: built-ins) of a run; asynchronous, so an in-process sandbox can answer it. */
async function loadedUrlsAsync(args: string[], env: Record<string, string>): Promise<string[]> {
  const log = newLog();
  const child = spawn(process.execPath, recordingRun(args), {
    env: { ...recordingEnv(log), ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const [code] = (await once(child, 'close')) as [number];
  expect(code, stderr).toBe(0);
  return recorded(log);
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

  it.each([['--help'], ['book', '--help'], ['--version', '--json']])(
    '`schedctl %s` loads commander and nothing heavy',
    (...args) => {
      const files = loadedFiles(args);
      expect(files).toContain('dist/cli.cjs');
      expect(files.every((f) => f.startsWith('dist/') || f.startsWith('bin/'))).toBe(true);
      const pkgs = packagesIn(files);
      expect([...pkgs].sort()).toEqual(['commander']);
      for (const heavy of HEAVY) expect(pkgs.has(heavy)).toBe(false);
    },
  );

  it.each([['--help'], ['book', '--help']])('`schedctl %s` never starts the ES module loader', (...args) => {
    // Node's own list of the internal modules it loaded, against a bare `node -e 0`: the
    // loader's module jobs and translators load only when an ES module is imported.
    const internals = (nodeArgs: string[]) => {
      const out = join(newLog(), '..', 'internals.json');
      const r = spawnSync(process.execPath, ['-r', join(root, 'test/helpers/record-internals.cjs'), ...nodeArgs], {
        env: {
          PATH: process.env.PATH,
          SCHEDCTL_INTERNALS_OUT: out,
          SCHEDCTL_CONFIG_DIR: join(tmpdir(), 'schedctl-no-config'),
        },
        encoding: 'utf8',
      });
      expect(r.status, r.stderr).toBe(0);
      return JSON.parse(readFileSync(out, 'utf8')) as string[];
    };
    const bare = new Set(internals(['-e', '0']));
    const added = internals([join(root, 'bin/schedctl.js'), ...args]).filter((m) => !bare.has(m));
    expect(added.filter((m) => m.includes('internal/modules/esm/'))).toEqual([]);
    expect(added.length).toBeGreaterThan(0); // the evidence is real: --help does load streams
  });

  it('bundles zod/mini only, but for the MCP server: the classic API would evaluate all of zod in every request-making command', () => {
    const meta = JSON.parse(readFileSync(join(root, 'dist/meta.json'), 'utf8')) as Meta;
    const inputs = Object.values(meta.outputs).flatMap((o) => Object.keys(o.inputs));
    expect(inputs.some((i) => i.includes('node_modules/zod/v4/mini/'))).toBe(true);
    // The MCP SDK validates its protocol with classic zod: allowed only in the chunk `schedctl mcp` loads.
    const classic = Object.entries(meta.outputs).filter(([, o]) =>
      Object.keys(o.inputs).some((i) => i.includes('node_modules/zod/v4/classic/')),
    );
    for (const [file, o] of classic) {
      expect(
        Object.keys(o.inputs).some((i) => i.startsWith('src/mcp/') || i.includes('@modelcontextprotocol/sdk')),
        `${file} holds classic zod outside the MCP server`,
      ).toBe(true);
    }
  });

  it("bundles conf without its JSON Schema validator (ajv) or atomically's signal listeners (when-exit)", () => {
    const meta = JSON.parse(readFileSync(join(root, 'dist/meta.json'), 'utf8')) as Meta;
    const inputs = Object.values(meta.outputs).flatMap((o) => Object.keys(o.inputs));
    expect(inputs.some((i) => i.includes('node_modules/conf/'))).toBe(true);
    // config.json is checked with zod (src/state/config-file.ts); the MCP SDK's ajv is stubbed too.
    expect(inputs.filter((i) => /node_modules\/(ajv|ajv-formats|when-exit)\//.test(i))).toEqual([]);
  });

  it("a command that sends nothing never loads undici (node:http's ES module facade would)", () => {
    const out = join(newLog(), '..', 'internals-profile.json');
    const r = spawnSync(
      process.execPath,
      ['-r', join(root, 'test/helpers/record-internals.cjs'), join(root, 'bin/schedctl.js'), 'profile', 'ls', '--json'],
      {
        env: {
          PATH: process.env.PATH,
          SCHEDCTL_INTERNALS_OUT: out,
          SCHEDCTL_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'schedctl-cold-')),
        },
        encoding: 'utf8',
      },
    );
    expect(r.status, r.stderr).toBe(0);
    const loaded = JSON.parse(readFileSync(out, 'utf8')) as string[];
    // The evidence is real: the command ran its ES modules.
    expect(loaded.some((m) => m.includes('internal/modules/esm/'))).toBe(true);
    expect(loaded.filter((m) => m.includes('undici'))).toEqual([]);
  });

  it('a request over http:// loads neither TLS, the sandbox nor the proxy agent', async () => {
    const sandbox = await startSandbox({ rateLimit: 0 });
    try {
      const urls = await loadedUrlsAsync(['triggers', 'ls', '--json'], {
        SCHEDCTL_BASE_URL: sandbox.baseUrl,
        SCHEDCTL_API_KEY: sandbox.keys.full,
      });
      // node:http comes through process.getBuiltinModule (transport.ts), not the loader: the
      // evidence that the list is real is the bundle's own chunks.
      expect(urls.some((u) => u.includes('/dist/esm/'))).toBe(true);
      expect(urls).not.toContain('node:https');
      expect(urls.filter((u) => u.includes('/dist/sandbox'))).toEqual([]);
      // The CONNECT tunnel's agent loads only when a proxy variable names a proxy for the API.
      const meta = JSON.parse(readFileSync(join(root, 'dist/meta.json'), 'utf8')) as Meta;
      const proxyOutputs = Object.entries(meta.outputs)
        .filter(([, o]) => Object.keys(o.inputs).some((i) => i.includes('node_modules/https-proxy-agent/')))
        .map(([f]) => f);
      expect(proxyOutputs.length).toBeGreaterThan(0);
      expect(urls.filter((u) => proxyOutputs.some((f) => u.endsWith(f)))).toEqual([]);
    } finally {
      await sandbox.close();
    }
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
  it('has one runtime dependency, jq for --jq (loaded only then); everything else is bundled into dist/', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Record<string, unknown>;
    // jq-wasm is jq compiled to WebAssembly (1.3 MB): bundled, it would more than double the
    // tarball; as a dependency, only `--jq` loads it (docs/json-output.md).
    expect(Object.keys(pkg.dependencies ?? {})).toEqual(['jq-wasm']);
    expect(pkg.optionalDependencies ?? {}).toEqual({});
    expect(pkg.peerDependencies ?? {}).toEqual({});
    const files = pkg.files as string[];
    expect(files).toEqual(expect.arrayContaining(['bin/', 'dist/']));
    // The completion scripts come from the CLI itself (`schedctl completion <shell>`), not the package.
    expect(files).not.toContain('completions/');
  });

  it('packs bin and dist, and no sources, tests or committed completion scripts', () => {
    const r = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const [packed] = JSON.parse(r.stdout) as Array<{ files: Array<{ path: string }> }>;
    const paths = packed!.files.map((f) => f.path);
    expect(paths).toContain('bin/schedctl.js');
    expect(paths).toContain('bin/package.json'); // makes bin/*.js CommonJS
    expect(paths).toContain('dist/cli.cjs');
    expect(paths).toContain('dist/esm/sandbox.mjs');
    expect(paths).not.toContain('completions/schedctl.bash');
    expect(paths.some((p) => p.startsWith('src/') || p.startsWith('test/') || p === 'dist/meta.json')).toBe(false);
  });
});
