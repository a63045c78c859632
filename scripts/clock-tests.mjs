#!/usr/bin/env node
/**
 * The unit test files that read a clock, for `npm run test:unit:ahead` (the unit tests with the
 * clock a year ahead, test/setup/clock-ahead.mjs). Computed, not listed, so a new test or a new
 * clock read is never left out: a file is in when it, or any module it reaches through relative
 * imports (static, `import()`, or a worker's `new URL('…', import.meta.url)`: test/helpers/, src/,
 * and so on down), contains a clock read:
 * `Date.now`, a `new Date()` or `Date()` without arguments, a file time (`mtime`, `ctime`,
 * `atime`, `birthtime`: the preload moves them too), a fake clock (`useFakeTimers`,
 * `setSystemTime`), or an import of a package that reads the clock itself (proper-lockfile's
 * stale-lock age, chrono-node's default reference date, luxon's `DateTime.now()`). Only the
 * files that can notice the shift are worth a second run; the rest run as they did, once, in
 * `npm test`.
 *
 *   node scripts/clock-tests.mjs            # the files, one a line
 *   node scripts/clock-tests.mjs --why      # each file with the first clock read it reaches
 *   node scripts/clock-tests.mjs --run      # vitest over them, the clock a year ahead (npm run test:unit:ahead)
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const CLOCK =
  /\bDate\.now\b|\bnew Date\(\s*\)|(?<![\w.])Date\(\s*\)|\b(?:mtime|ctime|atime|birthtime)(?:Ms)?\b|useFakeTimers|setSystemTime|from ['"](?:proper-lockfile|chrono-node|luxon)['"]/;
// An import, or a module run in a worker or bundle of its own (`new URL('../helpers/x.ts', import.meta.url)`).
const IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\bnew URL\(\s*)['"](\.{1,2}\/[^'"]+)['"]/g;

/** The file a relative specifier names: `.js` written for a `.ts` source, or a directory's index. */
function resolveImport(from, spec) {
  const base = resolve(dirname(from), spec);
  const candidates = [
    base,
    base.replace(/\.js$/, '.ts'),
    base.replace(/\.mjs$/, '.mts'),
    `${base}.ts`,
    join(base, 'index.ts'),
  ];
  return candidates.find((c) => existsSync(c) && statSync(c).isFile());
}

/** The text without its comments (a comment that names Date.now reads no clock). */
const code = (text) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|\s)\/\/.*$/gm, '$1');

/** The first clock read reachable from `file` (`path: line`), or null. */
function clockRead(file, seen = new Set()) {
  if (seen.has(file)) return null;
  seen.add(file);
  const text = code(readFileSync(file, 'utf8'));
  const hit = CLOCK.exec(text);
  let found = hit ? `${relative(root, file)}: ${hit[0]}` : null;
  for (const [, spec] of text.matchAll(IMPORT)) {
    if (found) break;
    const target = resolveImport(file, spec);
    if (target) found = clockRead(target, seen);
  }
  return found;
}

const dir = join(root, 'test/unit');
const files = readdirSync(dir)
  .filter((name) => name.endsWith('.test.ts'))
  .sort()
  .map((name) => join(dir, name));
const clocked = files.flatMap((file) => {
  const read = clockRead(file);
  return read ? [{ file: relative(root, file), read }] : [];
});
if (process.argv.includes('--run')) {
  console.log(
    `the clock a year ahead: ${clocked.length} of ${files.length} unit test files read a clock (scripts/clock-tests.mjs --why)`,
  );
  // The preload in NODE_OPTIONS: vitest's own process and every fork and worker it starts inherit it.
  const options = `${process.env.NODE_OPTIONS ?? ''} --import ./test/setup/clock-ahead.mjs`.trim();
  const r = spawnSync(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', ...clocked.map((c) => c.file)], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, NODE_OPTIONS: options },
  });
  process.exit(r.status ?? 1);
}
const why = process.argv.includes('--why');
for (const { file, read } of clocked) console.log(why ? `${file}  <- ${read}` : file);
