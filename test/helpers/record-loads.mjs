// Preloaded with `node --import` by the cold-start test: records every module the process
// loads. ES modules through a resolve hook (static and dynamic imports alike); CommonJS
// files (bin/, dist/cli.cjs) from the require cache when the process exits.
import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
import { pathToFileURL } from 'node:url';

register(
  'data:text/javascript,' +
    encodeURIComponent(`
      import { appendFileSync } from 'node:fs';
      export async function resolve(specifier, context, next) {
        const result = await next(specifier, context);
        if (process.env.SCHEDCTL_LOAD_LOG) appendFileSync(process.env.SCHEDCTL_LOAD_LOG, result.url + '\\n');
        return result;
      }
    `),
);

const cache = createRequire(import.meta.url).cache;
process.on('exit', () => {
  const log = process.env.SCHEDCTL_LOAD_LOG;
  if (!log) return;
  const files = Object.keys(cache).filter((f) => f.startsWith('/'));
  if (files.length) appendFileSync(log, `${files.map((f) => pathToFileURL(f).href).join('\n')}\n`);
});
