// The published package runs no script when it is installed: `prepare` builds dist/ in a clone
// (`npm install` / `npm ci`, then `npm run demo` works), but in the tarball dist/ is built already
// and npm would only warn about an install script. So `npm pack` / `npm publish` pack a
// package.json without the install lifecycle scripts: `strip` (prepack) keeps the original aside
// and rewrites it, `restore` (postpack) puts it back. A strip whose restore never ran (a failed
// pack) is undone by the next strip or restore: the original is taken from the copy kept aside.
// Usage: node scripts/pack-manifest.mjs strip|restore
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const manifest = join(root, 'package.json');
const kept = join(root, 'node_modules/.cache/schedctl/package.json.prepack');
/** What npm runs on install (or on `npm install` of a git dependency): never in the published package. */
export const INSTALL_SCRIPTS = ['preinstall', 'install', 'postinstall', 'preprepare', 'prepare', 'postprepare'];

const [command] = process.argv.slice(2);
if (command === 'strip') {
  if (existsSync(kept)) renameSync(kept, manifest); // an earlier pack that never restored
  const text = readFileSync(manifest, 'utf8');
  mkdirSync(dirname(kept), { recursive: true });
  writeFileSync(kept, text);
  const pkg = JSON.parse(text);
  for (const name of INSTALL_SCRIPTS) delete pkg.scripts?.[name];
  writeFileSync(manifest, `${JSON.stringify(pkg, null, 2)}\n`);
} else if (command === 'restore') {
  if (existsSync(kept)) renameSync(kept, manifest);
} else {
  console.error('usage: pack-manifest.mjs strip|restore');
  process.exit(2);
}
