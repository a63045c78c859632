/**
 * Node's fetch ignores HTTPS_PROXY/HTTP_PROXY/NO_PROXY; undici's EnvHttpProxyAgent honors
 * them. Installed as the global dispatcher (which Node's fetch uses) only when a proxy
 * variable is set, so nobody else pays for loading it. NODE_EXTRA_CA_CERTS needs nothing:
 * Node adds those certificates to its trust store at start.
 */
import { EnvHttpProxyAgent, setGlobalDispatcher } from 'undici';

export function installProxyFromEnv(): void {
  setGlobalDispatcher(new EnvHttpProxyAgent());
}
