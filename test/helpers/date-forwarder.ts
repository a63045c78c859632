/**
 * An HTTP forwarder in front of the sandbox that rewrites the `Date` header of every answer (a
 * misconfigured or hostile server clock): `setDate(fn)` gives the header to send from the one the
 * sandbox sent (undefined: leave it out). Everything else passes byte for byte.
 */
import { createServer, request, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export type DateRewrite = (original: string | undefined) => string | undefined;

export interface DateForwarder {
  readonly baseUrl: string;
  setDate(rewrite: DateRewrite): void;
  close(): Promise<void>;
}

export async function startDateForwarder(target: string): Promise<DateForwarder> {
  const to = new URL(target);
  let rewrite: DateRewrite = (d) => d;
  const server = createServer((req, res) => {
    const upstream = request(
      { host: to.hostname, port: to.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        const headers: IncomingHttpHeaders = { ...answer.headers };
        const date = rewrite(answer.headers.date);
        if (date === undefined) delete headers.date;
        else headers.date = date;
        // Node adds a Date of its own unless told not to.
        res.sendDate = false;
        res.writeHead(answer.statusCode ?? 502, headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    setDate: (fn) => (rewrite = fn),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
