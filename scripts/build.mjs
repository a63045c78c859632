// Bundles src/ into dist/ with esbuild: ESM, code splitting (so lazy imports stay lazy
// and --help loads only commander), no runtime node_modules, source maps for real crashes.
// Usage: node scripts/build.mjs [--clean]
import { build } from 'esbuild';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { stripDir } from './strip-vendor-maps.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const pkg = JSON.parse(readFileSync(`${root}/package.json`, 'utf8'));
if (process.argv.includes('--clean')) rmSync(`${root}/dist`, { recursive: true, force: true });

// Stand-ins for modules a dependency loads at start for features schedctl never uses.
const STUBS = [
  { module: 'node:child_process', from: 'node_modules/commander/', stub: 'scripts/stubs/lazy-child-process.cjs' },
  { module: 'semver', from: 'node_modules/conf/', stub: 'scripts/stubs/semver.mjs' },
  { module: 'node:crypto', from: 'node_modules/conf/', stub: 'scripts/stubs/lazy-crypto.mjs' },
  { module: 'when-exit', from: 'node_modules/atomically/', stub: 'scripts/stubs/when-exit.mjs' },
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

const result = await build({
  absWorkingDir: root,
  entryPoints: { cli: 'src/cli.ts', sandbox: 'src/sandbox/server.ts' },
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  minify: true,
  sourcemap: 'linked',
  sourcesContent: false,
  legalComments: 'linked',
  chunkNames: 'chunks/[name]-[hash]',
  define: { __SCHEDCTL_VERSION__: JSON.stringify(pkg.version) },
  // commander and others are CommonJS: esbuild's ESM output needs a real `require` for node: built-ins.
  banner: { js: "import{createRequire as __cr}from'node:module';const require=__cr(import.meta.url);" },
  // conf pulls in ajv only for its `schema` option, which schedctl does not use: keep it out of the bundle.
  // @inquirer/editor (never used) brings iconv-lite and chardet: most of the prompts' size.
  alias: {
    'ajv/dist/2020.js': './scripts/stubs/ajv.mjs',
    'ajv-formats': './scripts/stubs/ajv-formats.mjs',
    '@inquirer/editor': './scripts/stubs/inquirer-editor.mjs',
  },
  plugins: [unusedFeatureStubs],
  logLevel: 'warning',
  metafile: true,
});
// Which sources went into which output file: the test that keeps --help light reads it.
writeFileSync(`${root}/dist/meta.json`, JSON.stringify(result.metafile));
stripDir(`${root}/dist`);
