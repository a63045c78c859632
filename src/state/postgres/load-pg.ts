/**
 * Loads the PostgreSQL client (`pg`) for a command with a team state, as fast as Node 20 allows.
 *
 * The build bundles `pg` on its own into dist/pg.cjs (CommonJS: about 5 ms less to load than
 * the same code as an ES module chunk). Most of what is left is V8 compiling it, each run anew:
 * so it is compiled with a code cache, as Node 22's module.enableCompileCache() would do for
 * every module. The cache is made once, after the first run that used the client (so the
 * functions a connection and a query need are in it), in `<cache dir>/schedctl/`
 * ($XDG_CACHE_HOME, else ~/.cache), 0600 in a 0700 directory, named by the bundle's hash, the
 * Node version and the architecture; V8 refuses a cache that does not fit (then it is made
 * again). Nothing here can fail a command: without the bundle (running from src/, in tests)
 * `pg` is imported as usual, and a cache that cannot be read or written is done without.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';
import { clientConfigWith } from './client-config.js';
import type { EarlyConnection } from './connect.js';

type Pg = typeof import('pg');

declare const __PG_BUNDLE_HASH__: string | undefined;
/**
 * dist/pg.cjs's content hash, from the build that made it (hashing it at each start cost about
 * a millisecond): the code cache's name. Without it (never in a build) there is no cache.
 */
const BUNDLE_HASH = typeof __PG_BUNDLE_HASH__ === 'string' ? __PG_BUNDLE_HASH__ : undefined;

/** dist/pg.cjs of the package this module was bundled into; undefined when running from src/. */
export function bundledPgPath(here = fileURLToPath(import.meta.url)): string | undefined {
  const at = here.lastIndexOf(`${sep}dist${sep}`);
  return at === -1 ? undefined : join(here.slice(0, at), 'dist', 'pg.cjs');
}

export function codeCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.XDG_CACHE_HOME || join(env.HOME || homedir(), '.cache'), 'schedctl');
}

/** Saves the code cache when this run made the client without one (see saveCodeCache). */
let pendingSave: (() => void) | undefined;

/** The bundle's `pg`, with the connection string parser it carries (pg-connection-string's). */
export type BundledPg = Pg & { parseConnectionString: (url: string) => Record<string, unknown> };

let bundled: BundledPg | null | undefined;

export async function loadPg(): Promise<Pg> {
  const pg = loadBundledPg();
  if (pg) return pg;
  // Running from src/ (tests): a CommonJS module, its classes on the default export.
  const m = await import('pg');
  return ((m as unknown as { default?: Pg }).default ?? m) as Pg;
}

/** The bundled client, loaded at once (no ES module loader on the way); undefined without dist/pg.cjs. */
export function loadBundledPg(): BundledPg | undefined {
  if (bundled === undefined) bundled = compileBundle() ?? null;
  return bundled ?? undefined;
}

function compileBundle(): BundledPg | undefined {
  const file = bundledPgPath();
  if (file === undefined) return undefined;
  let source: string;
  try {
    source = readFileSync(file, 'utf8');
  } catch {
    return undefined; // an older build layout: the ES module import
  }
  const cacheFile =
    BUNDLE_HASH === undefined
      ? undefined
      : join(codeCacheDir(), `pg-${BUNDLE_HASH}-${process.version}-${process.arch}.v8`);
  let cachedData: Buffer | undefined;
  try {
    cachedData = cacheFile === undefined ? undefined : readFileSync(cacheFile);
  } catch {
    cachedData = undefined;
  }
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: file,
    ...(cachedData ? { cachedData } : {}),
  });
  const mod = { exports: {} as unknown };
  (script.runInThisContext() as (...args: unknown[]) => void).call(
    mod.exports,
    mod.exports,
    createRequire(file),
    mod,
    file,
    dirname(file),
  );
  if (cacheFile !== undefined && (!cachedData || script.cachedDataRejected))
    pendingSave = () => writeCodeCache(cacheFile, script.createCachedData());
  return mod.exports as BundledPg;
}

/**
 * Writes the code cache this run could not use, once the client has connected and queried
 * (V8 then includes the functions that took). Called when a command's database work is done.
 */
export function saveCodeCache(): void {
  const save = pendingSave;
  pendingSave = undefined;
  save?.();
}

function writeCodeCache(file: string, data: Buffer): void {
  try {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    // Written aside and renamed: a parallel run reads the whole cache or none.
    const partial = `${file}.${process.pid}.tmp`;
    writeFileSync(partial, data, { mode: 0o600 });
    renameSync(partial, file);
  } catch {
    // A cache is an optimisation: a read-only home only makes the next run compile again.
  }
}

/**
 * The team database's connection, opened the moment a command knows its state URL: its round
 * trips overlap what the command still loads (the HTTP layer, the ledger's modules). Never fails
 * a command (a failure is the first real use's to say); undefined when running from src/.
 */
export function connectEarly(url: string): EarlyConnection | undefined {
  try {
    const pg = loadBundledPg();
    if (!pg) return undefined;
    const config = clientConfigWith(pg.parseConnectionString, url);
    const client = new pg.Client({ ...config, pipeline: true });
    // Until the Database adds its own listeners: a failure is its to report, not a crash.
    client.on('error', () => {});
    const connected = client.connect();
    connected.catch(() => {});
    return { client, config, connected };
  } catch {
    return undefined;
  }
}
