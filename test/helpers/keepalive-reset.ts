/**
 * A loopback forwarder in front of the sandbox whose connections a server "closes" right after an
 * answer (issue 52 finding 9): every connection is forwarded byte for byte, except that once a
 * connection has carried a request whose path matches `after`, the next request written into that
 * kept-alive connection is never forwarded: the connection is reset instead. That is what a client
 * sees of a server (or middlebox) that closed the connection as the request was being written; the
 * deterministic form of the race. `seen` lists the requests forwarded, as `METHOD /path`.
 *
 * Request lines are read from the start of the client's chunks: enough for the CLI's requests
 * (small, one write each), not a general HTTP parser.
 */
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';

export interface KeepAliveReset {
  readonly baseUrl: string;
  /** The requests forwarded to the sandbox, in order, as `METHOD /path` (query dropped). */
  readonly seen: string[];
  /** How many kept-alive connections were reset instead of carrying their next request. */
  readonly resets: number;
  close(): Promise<void>;
}

const REQUEST_LINE = /^(GET|POST|PATCH|PUT|DELETE|HEAD|OPTIONS) (\S+) HTTP\/1\.[01]\r\n/;

function reset(socket: Socket): void {
  if (socket.destroyed) return;
  try {
    socket.resetAndDestroy();
  } catch {
    socket.destroy();
  }
}

export async function startKeepAliveReset(target: string, after: RegExp): Promise<KeepAliveReset> {
  const to = new URL(target);
  const seen: string[] = [];
  const sockets = new Set<Socket>();
  let resets = 0;
  const server = createServer((client) => {
    sockets.add(client);
    const upstream = connect(Number(to.port), to.hostname);
    sockets.add(upstream);
    let armed = false; // the connection carried a request matching `after`
    const end = () => {
      reset(client);
      reset(upstream);
    };
    client.on('error', end);
    upstream.on('error', end);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.end());
    client.on('data', (chunk: Buffer) => {
      const line = REQUEST_LINE.exec(chunk.toString('latin1'));
      if (line) {
        if (armed) {
          resets++;
          return end();
        }
        const path = line[2]!.split('?')[0]!;
        seen.push(`${line[1]} ${path}`);
        if (after.test(path)) armed = true;
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => client.write(chunk));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    seen,
    get resets() {
      return resets;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
