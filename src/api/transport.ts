/**
 * The transport under ky: `fetch(request)` implemented on node:http/https.
 *
 * Why not Node's own fetch: on Node 20 the first fetch compiles undici's HTTP parser
 * (WebAssembly) and costs about 0.2 s and 40 MB per process, more than all of schedctl
 * besides; `npx` users and shell loops pay it on every run. ky keeps doing everything
 * above the wire (retries, timeouts, hooks, JSON); this only moves bytes. Behind a proxy
 * (HTTPS_PROXY/HTTP_PROXY) Node's fetch with undici's proxy agent is used instead.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';

const agents = {
  'http:': new HttpAgent({ keepAlive: true }),
  'https:': new HttpsAgent({ keepAlive: true }),
};

export async function nodeFetch(input: Request): Promise<Response> {
  const url = new URL(input.url);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError(`unsupported protocol ${url.protocol}`);
  const { signal } = input;
  const body = input.body ? Buffer.from(await input.arrayBuffer()) : undefined;
  signal.throwIfAborted();
  const headers: Record<string, string> = Object.fromEntries(input.headers);
  if (body) headers['content-length'] = String(body.length);

  return new Promise<Response>((resolve, reject) => {
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(url, { method: input.method, headers, agent: agents[url.protocol as 'http:' | 'https:'] }, (res) => {
      resolve(toResponse(res, input.method));
    });
    const onAbort = () => {
      req.destroy(signal.reason as Error);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    // Shaped like fetch's own failure, so callers read the cause's code (ECONNREFUSED, ...).
    req.on('error', (error) => reject(new TypeError('fetch failed', { cause: error })));
    req.on('close', () => {
      if (req.writableFinished && !signal.aborted) signal.removeEventListener('abort', onAbort);
    });
    req.end(body);
  });
}

function toResponse(res: IncomingMessage, method: string): Response {
  const status = res.statusCode ?? 0;
  const headers = new Headers();
  for (const [name, value] of Object.entries(res.headers)) {
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else if (value !== undefined) headers.set(name, value);
  }
  const noBody = method === 'HEAD' || status === 204 || status === 304;
  if (noBody) res.resume();
  const body = noBody ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>);
  return new Response(body, { status, statusText: res.statusMessage ?? '', headers });
}
