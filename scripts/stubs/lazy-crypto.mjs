// conf loads node:crypto at start only for its `encryptionKey` option, which schedctl does
// not use (the key file's protection is its 0600 mode). Resolve it on first use.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
export default new Proxy({}, { get: (_target, key) => (key === '__esModule' ? undefined : require('node:crypto')[key]) });
