// Bundles src/ into dist/ with esbuild: a CommonJS front (commander and the command
// definitions: all --help needs) and an ESM back with code splitting (so lazy imports stay
// lazy), no runtime node_modules, source maps for real crashes.
//
// THE RULE (test/perf/bundle-layout.test.ts holds it):
//   src/commands/ holds only definitions (name, arguments, flags, help). They import nothing
//   but commander, ./action.js, src/limits.ts and types. A command's work is its run module in
//   src/run/, reached only through the import() calls in src/commands/runners.ts. Everything
//   else (api, domain, ui, errors, config) belongs to the back: a static import of it into a
//   definition would bundle a second copy into the front, where `instanceof` meets the wrong
//   class. Inside src/run/ and below, use ordinary static imports.
// Usage: node scripts/build.mjs [--clean]
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stripDir } from './strip-vendor-maps.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const pkg = JSON.parse(readFileSync(`${root}/package.json`, 'utf8'));
if (process.argv.includes('--clean')) rmSync(`${root}/dist`, { recursive: true, force: true });

// Stand-ins for modules a dependency loads at start for features schedctl never uses.
const STUBS = [
  { module: 'node:child_process', from: 'node_modules/commander/', stub: 'scripts/stubs/lazy-child-process.cjs' },
  {
    module: '../validation/ajv-provider.js',
    from: 'node_modules/@modelcontextprotocol/sdk/',
    stub: 'scripts/stubs/mcp-ajv-provider.mjs',
  },
  { module: 'zod/v3', from: 'node_modules/@modelcontextprotocol/sdk/', stub: 'scripts/stubs/mcp-zod-v3.mjs' },
  // Its log would print the proxy URL with its password (DEBUG=https-proxy-agent): see the stub.
  { module: 'debug', from: 'node_modules/https-proxy-agent/', stub: 'scripts/stubs/debug-off.mjs' },
  // conf's JSON Schema support (config.json is checked with zod instead): see the stub.
  { module: 'ajv/dist/2020.js', from: 'node_modules/conf/', stub: 'scripts/stubs/conf-no-ajv.mjs' },
  { module: 'ajv-formats', from: 'node_modules/conf/', stub: 'scripts/stubs/conf-no-ajv.mjs' },
  { module: 'semver', from: 'node_modules/conf/', stub: 'scripts/stubs/conf-lazy-semver.cjs' },
  // Its signal listeners would change how schedctl answers Ctrl-C: see the stub.
  { module: 'when-exit', from: 'node_modules/atomically/', stub: 'scripts/stubs/when-exit-off.mjs' },
  // The team state's parser of connection strings is the one inside dist/pg.cjs: see the stub.
  {
    module: 'pg-connection-string',
    from: 'src/state/postgres/',
    stub: 'scripts/stubs/pg-connection-string-in-pg-bundle.mjs',
  },
  // pg loads node:dns at start for pg-native only: see the stub.
  { module: 'dns', from: 'node_modules/pg/lib/', stub: 'scripts/stubs/lazy-dns.cjs' },
  {
    module: 'zod-to-json-schema',
    from: 'node_modules/@modelcontextprotocol/sdk/',
    stub: 'scripts/stubs/mcp-zod-v3.mjs',
  },
];
const unusedFeatureStubs = {
  name: 'unused-feature-stubs',
  setup(b) {
    for (const { module, from, stub } of STUBS) {
      const filter = new RegExp(`^${module.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);
      b.onResolve({ filter }, (args) => (args.importer.includes(from) ? { path: `${root}/${stub}` } : undefined));
    }
  },
};

// The MCP server (lazy, `schedctl mcp`) brings the SDK, which uses classic zod and its JSON
// Schema converter; the API layer uses zod/mini. Sharing one zod would put the union of both
// into the chunk every API command loads (93 KB of zod instead of 36 KB: a measurable part of
// a one-request command's start). So the SDK, its helpers and src/mcp/ get their own copy of
// zod (the devDependency alias zod-mcp, the same version), in chunks only `schedctl mcp` loads.
const MCP_IMPORTERS =
  /[\\/](node_modules[\\/]@modelcontextprotocol|node_modules[\\/]zod-to-json-schema|src[\\/]mcp)[\\/]/;
const mcpOwnZod = {
  name: 'mcp-own-zod',
  setup(b) {
    b.onResolve({ filter: /^zod(\/|$)/ }, (args) =>
      MCP_IMPORTERS.test(args.importer)
        ? b.resolve(args.path.replace(/^zod/, 'zod-mcp'), { kind: args.kind, resolveDir: args.resolveDir })
        : undefined,
    );
  },
};

const common = {
  absWorkingDir: root,
  bundle: true,
  platform: 'node',
  target: 'node20',
  minify: true,
  sourcemap: 'linked',
  sourcesContent: false,
  legalComments: 'linked',
  define: { __SCHEDCTL_VERSION__: JSON.stringify(pkg.version) },
  // @inquirer/editor (never used) brings iconv-lite and chardet: most of the prompts' size.
  alias: {
    '@inquirer/editor': './scripts/stubs/inquirer-editor.mjs',
  },
  logLevel: 'warning',
  metafile: true,
};

// Two outputs, so that `--help` never starts Node's ES module loader (about a quarter of a
// bare Node start):
// - the front, dist/cli.cjs (CommonJS): commander and the command definitions, which is all
//   `--help` needs. Every `import()` in it is left to the back, rewritten to its file there.
// - the back, dist/esm/ (ESM, code splitting so lazy imports stay lazy): everything the
//   actions load, one entry per module the front imports, and the sandbox.
const backEntries = new Map(); // entry name (path under src/, no extension) -> source file
const toBack = {
  name: 'dynamic-imports-to-the-back',
  setup(b) {
    b.onResolve({ filter: /.*/ }, (args) => {
      if (args.kind !== 'dynamic-import' || args.path.startsWith('node:')) return undefined;
      if (!args.path.startsWith('.')) {
        // A package the front imports lazily (@inquirer/prompts, luxon): an entry of its own.
        const name = `vendor/${args.path.replace(/\//g, '+')}`;
        backEntries.set(name, args.path);
        return { path: `./esm/${name}.mjs`, external: true };
      }
      const source = resolve(args.resolveDir, args.path).replace(/\.js$/, '.ts');
      const name = relative(`${root}/src`, source).replace(/\.ts$/, '');
      if (name.startsWith('..')) throw new Error(`dynamic import outside src/: ${args.path} from ${args.importer}`);
      backEntries.set(name, source);
      return { path: `./esm/${name}.mjs`, external: true };
    });
  },
};
// pg's socket functions without its Cloudflare Workers probe (scripts/stubs/pg-node-stream.cjs).
const pgNodeStream = {
  name: 'pg-node-stream',
  setup(b) {
    b.onResolve({ filter: /^\.\/stream$/ }, (args) =>
      /[\\/]node_modules[\\/]pg[\\/]lib$/.test(args.resolveDir)
        ? { path: `${root}/scripts/stubs/pg-node-stream.cjs` }
        : undefined,
    );
  },
};
const front = await build({
  ...common,
  entryPoints: { cli: 'src/cli.ts' },
  outfile: undefined,
  outdir: 'dist',
  outExtension: { '.js': '.cjs' },
  format: 'cjs',
  plugins: [unusedFeatureStubs, toBack],
});
// The PostgreSQL client (only a team state loads it) on its own, as CommonJS: loaded with a V8
// code cache by src/state/postgres/load-pg.ts (about half its load time), not as an ES module chunk.
const pgClient = await build({
  ...common,
  entryPoints: { pg: 'scripts/pg-entry.cjs' },
  outdir: 'dist',
  outExtension: { '.js': '.cjs' },
  format: 'cjs',
  // pg's optional native binding (never used: pg.native is not touched).
  external: ['pg-native'],
  plugins: [pgNodeStream, unusedFeatureStubs],
});
// Names its code cache (load-pg.ts): hashing the bundle at every start cost about a millisecond.
const pgBundleHash = createHash('sha256')
  .update(readFileSync(`${root}/dist/pg.cjs`))
  .digest('hex')
  .slice(0, 16);
const back = await build({
  ...common,
  // jq-wasm (a compiled jq, 1.3 MB) is a runtime dependency, loaded only with --jq: bundled, it would
  // more than double the tarball (docs/json-output.md).
  external: ['pg', 'jq-wasm'],
  define: { ...common.define, __PG_BUNDLE_HASH__: JSON.stringify(pgBundleHash) },
  entryPoints: { ...Object.fromEntries(backEntries), sandbox: 'src/sandbox/server.ts' },
  outdir: 'dist/esm',
  // .mjs, not .js: Node then knows each file is an ES module from its name, without looking for
  // the package.json that says so (a walk up the directories for every chunk a command imports:
  // about 4 % of a one-request command's CPU).
  outExtension: { '.js': '.mjs' },
  splitting: true,
  format: 'esm',
  chunkNames: 'chunks/[name]-[hash]',
  // commander and others are CommonJS: esbuild's ESM output needs a real `require` for node: built-ins.
  banner: { js: "import{createRequire as __cr}from'node:module';const require=__cr(import.meta.url);" },
  plugins: [unusedFeatureStubs, mcpOwnZod],
});
const result = {
  metafile: {
    inputs: { ...front.metafile.inputs, ...back.metafile.inputs, ...pgClient.metafile.inputs },
    outputs: { ...front.metafile.outputs, ...back.metafile.outputs, ...pgClient.metafile.outputs },
  },
};
// Which sources went into which output file: the test that keeps --help light reads it.
writeFileSync(`${root}/dist/meta.json`, JSON.stringify(result.metafile));
stripDir(`${root}/dist`);
