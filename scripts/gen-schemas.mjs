// Writes schemas/<kind>.json: one JSON Schema (draft 2020-12) for each kind of `--json`
// document, generated from the zod schemas in src/documents/ (the ones the code builds its
// documents with and the tests validate every --json output against), so the published
// contract cannot drift from what the CLI prints. schemas/ ships in the package.
// Usage: node scripts/gen-schemas.mjs           rewrite schemas/
//        node scripts/gen-schemas.mjs --check   exit 1, naming them, when any is out of date
// (test/unit/json-schemas.test.ts runs --check.)
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const OUT = `${root}schemas`;

/** src/documents bundled to one ES module in memory (the scripts run TypeScript no other way). */
async function loadDocuments() {
  const result = await build({
    entryPoints: [`${root}src/documents/json-schemas.ts`],
    bundle: true,
    format: 'esm',
    platform: 'node',
    write: false,
    logLevel: 'silent',
  });
  const code = result.outputFiles[0].text;
  return import(`data:text/javascript;base64,${Buffer.from(code).toString('base64')}`);
}

export async function renderSchemas() {
  const { jsonSchemas } = await loadDocuments();
  return Object.fromEntries(
    Object.entries(jsonSchemas()).map(([kind, schema]) => [`${kind}.json`, `${JSON.stringify(schema)}\n`]),
  );
}

const files = await renderSchemas();
if (process.argv.includes('--check')) {
  const have = (() => {
    try {
      return readdirSync(OUT).filter((f) => f.endsWith('.json'));
    } catch {
      return [];
    }
  })();
  const stale = [
    ...Object.entries(files)
      .filter(([name, text]) => {
        try {
          return readFileSync(`${OUT}/${name}`, 'utf8') !== text;
        } catch {
          return true;
        }
      })
      .map(([name]) => name),
    ...have.filter((name) => !(name in files)),
  ];
  if (stale.length) {
    console.error(`schemas/ is out of date (${stale.join(', ')}): run npm run schemas`);
    process.exit(1);
  }
} else {
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT, { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(`${OUT}/${name}`, text);
  console.log(`wrote ${Object.keys(files).length} schemas to schemas/`);
}
