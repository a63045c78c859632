/**
 * A connection opened ahead of the first request, so that the TCP (and TLS) handshake with
 * the API runs while the HTTP layer (ky, Node's WHATWG classes, zod) is still loading: on a
 * real network that load and the handshake each take tens of milliseconds, one after the
 * other otherwise.
 *
 * Only a fresh, open connection is handed to a request, and only to one that may be repeated
 * (a read, a slots request): one that waited too long (a command that prompted first) or that
 * the server or network closed is dropped, and a request that must not be repeated (a
 * booking) never takes it (send-hook.ts, asUnrepeatable): a server may drop a connection as
 * it comes up, and a booking written into it could not tell that from a lost answer.
 */
import type { Agent, ClientRequestArgs } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';

/** How long an opened-ahead connection may wait for its request. */
export const WARM_MS = 1000;

export const connectionKey = (host: string, port: string | number): string => `${host.replace(/^\[|\]$/g, '')}:${port}`;

interface Held {
  key: string;
  socket: Socket;
  openedAt: number;
  usable: boolean;
  onError: () => void;
}

/** Holds at most one opened-ahead connection for an agent. */
export class WarmConnections {
  #held: Held | undefined;
  /** --debug lines: what happened to the connection opened ahead. */
  log: ((line: string) => void) | undefined;

  constructor(private readonly now: () => number = Date.now) {}

  hold(key: string, socket: Socket): void {
    this.#held?.socket.destroy();
    const held: Held = {
      key,
      socket,
      openedAt: this.now(),
      usable: true,
      // Unclaimed, a failure is nobody's error: the request that would have used this
      // connection opens its own and reports what it meets.
      onError: () => {
        held.usable = false;
      },
    };
    socket.on('error', held.onError);
    socket.once('end', () => (held.usable = false));
    socket.once('close', () => (held.usable = false));
    // An unclaimed connection must not keep the process alive.
    socket.unref();
    this.#held = held;
  }

  /** Closes the held connection unused (the request that would take it must not), saying why. */
  discard(why: string): void {
    const held = this.#held;
    if (!held) return;
    this.#held = undefined;
    held.socket.destroy();
    this.log?.(`not using the connection opened ahead to ${held.key} (${why}): opening a new one`);
  }

  /** The held connection to `key` if it is fresh and open; any other held one is closed. */
  take(key: string): Socket | undefined {
    const held = this.#held;
    if (!held) return undefined;
    const fresh = held.usable && !held.socket.destroyed && this.now() - held.openedAt <= WARM_MS;
    if (held.key !== key && fresh) return undefined; // for another origin: leave it
    this.#held = undefined;
    if (!fresh) {
      const why =
        held.usable && !held.socket.destroyed ? `idle ${this.now() - held.openedAt} ms` : 'it was closed or failed';
      held.socket.destroy();
      this.log?.(`not using the connection opened ahead to ${held.key} (${why}): opening a new one`);
      return undefined;
    }
    held.socket.removeListener('error', held.onError);
    held.socket.ref();
    this.log?.(`using the connection opened ahead to ${key}`);
    return held.socket;
  }
}

// A mixin's base must accept any constructor arguments (TypeScript's rule for mixins).
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a mixin's base class must take any constructor arguments (TypeScript's rule for mixins).
type AgentClass = new (...args: any[]) => Agent;

/** An Agent (http or https) whose first connection to an origin may be one opened ahead. */
export function withWarmConnections<A extends AgentClass>(Base: A) {
  return class extends Base {
    readonly warm = new WarmConnections();
    /** When each kept-alive connection was last handed back (the agent's 'free' event). */
    readonly #idleSince = new WeakMap<Socket, number>();

    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a mixin's constructor takes its base's arguments.
    constructor(...args: any[]) {
      super(...args);
      this.on('free', (socket: Socket) => this.#idleSince.set(socket, Date.now()));
    }

    /**
     * Closes the kept-alive connections idle longer than `maxIdleMs` (removing them from the
     * agent's free list at once, not when their 'close' event comes), so that the next request
     * opens a new one; returns how many were closed.
     */
    dropIdle(maxIdleMs: number, now: number = Date.now()): number {
      let dropped = 0;
      for (const sockets of Object.values(this.freeSockets)) {
        if (!sockets) continue;
        for (let i = sockets.length - 1; i >= 0; i--) {
          const socket = sockets[i] as Socket;
          if (now - (this.#idleSince.get(socket) ?? 0) <= maxIdleMs) continue;
          sockets.splice(i, 1);
          socket.destroy();
          dropped++;
        }
      }
      if (dropped)
        this.warm.log?.(
          `closed ${dropped} kept-alive connection(s)${maxIdleMs >= 0 ? ` idle over ${maxIdleMs} ms` : ''}: a request that must not be repeated opens its own`,
        );
      return dropped;
    }

    /**
     * Closes every kept-alive connection, so that the next request (one that must not be
     * repeated: a booking, a fire, a move) opens a new one. A server may close a kept-alive
     * connection at any moment after an answer (its keep-alive timeout, a deploy, a middlebox),
     * and a request written into it as it closes fails with ECONNRESET after its bytes left,
     * which for a booking reads as a lost answer (issue 52 finding 9). One more handshake per
     * booking is the price.
     */
    dropAllIdle(): number {
      return this.dropIdle(-1);
    }

    override createConnection(
      options: ClientRequestArgs,
      callback?: (err: Error | null, stream: Duplex) => void,
    ): Duplex | null | undefined {
      const port = options.port ?? options.defaultPort ?? '';
      const socket = this.warm.take(connectionKey(options.host ?? options.hostname ?? 'localhost', port));
      return socket ?? super.createConnection(options, callback);
    }
  };
}
