import type { Store } from '../store.js';

/** What a route handler gets. Handlers are synchronous so check-and-commit cannot interleave. */
export interface HandlerContext {
  store: Store;
  params: Record<string, string>;
  query: URLSearchParams;
  /** The parsed JSON body (throws INVALID_REQUEST when malformed). */
  json: () => unknown;
  baseUrl: string;
}
