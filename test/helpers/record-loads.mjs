// Preloaded with `node --import` by the cold-start test: records every module URL the
// process loads (the resolve hook runs for static and dynamic imports alike).
import { register } from 'node:module';

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
