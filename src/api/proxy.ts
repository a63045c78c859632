/**
 * Node's fetch ignores HTTPS_PROXY/HTTP_PROXY/NO_PROXY; undici's EnvHttpProxyAgent honors
 * them. It is installed as the global dispatcher (which Node's fetch uses) only when a
 * proxy variable is set, so nobody else pays for loading it. NODE_EXTRA_CA_CERTS needs
 * nothing: Node adds those certificates to its trust store at start.
 *
 * Deep imports keep undici's fetch, cache, mocks and websocket out of the bundle (about
 * half its size). They repeat the one thing undici's index does that the agent needs:
 * mixing the request API (`connect` for the proxy tunnel, ...) into Dispatcher.
 */
// @ts-expect-error: undici ships no types for its lib/ files.
import Dispatcher from 'undici/lib/dispatcher/dispatcher.js';
// @ts-expect-error: as above.
import * as requestApi from 'undici/lib/api/index.js';
// @ts-expect-error: as above.
import EnvHttpProxyAgent from 'undici/lib/dispatcher/env-http-proxy-agent.js';
// @ts-expect-error: as above.
import { setGlobalDispatcher } from 'undici/lib/global.js';

export function installProxyFromEnv(): void {
  Object.assign((Dispatcher as { prototype: object }).prototype, requestApi);
  (setGlobalDispatcher as (agent: unknown) => void)(new (EnvHttpProxyAgent as new () => unknown)());
}
