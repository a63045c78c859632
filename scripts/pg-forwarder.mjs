// A TCP forwarder between schedctl and a PostgreSQL server that stands in for a network: each
// chunk waits `delayMs` before it is passed on, each way (so a round trip costs 2 x delayMs),
// in order. It also counts round trips directly: a "flight" is the client writing after the
// server did (or first), and `waits` counts the flights begun while no other connection was
// waiting for an answer (parallel connections that overlap count once). A client's Terminate
// message alone (it waits for nothing) is not a flight, and a flight the client ends with its
// Terminate before any answer came (a query written on the way out, never read) is no wait.
// Used by scripts/bench-team.mjs.
import { connect, createServer } from 'node:net';

/** PostgreSQL's Terminate message: 'X' and a length of 4. */
const TERMINATE = Buffer.from([0x58, 0, 0, 0, 4]);

export async function startForwarder({ host, port, listenHost = '127.0.0.1' }) {
  const state = { delayMs: 0, waits: 0, flights: 0, connections: 0 };
  /** Connections whose client wrote and whose server has not answered since. */
  const waiting = new Set();
  const sockets = new Set();
  const server = createServer((client) => {
    const n = ++state.connections;
    const upstream = connect(port, host);
    sockets.add(client).add(upstream);
    const id = {};
    let lastFromClient = false;
    /** The flight under way was counted as a wait (taken back if the client leaves without its answer). */
    let countedWait = false;
    // In order, each chunk delayMs after it came (equal delays: timers fire in order).
    const pass = (to, chunk) => {
      if (state.delayMs === 0) to.write(chunk);
      else setTimeout(() => to.destroyed || to.write(chunk), state.delayMs);
    };
    client.on('data', (chunk) => {
      const terminates = chunk.length >= TERMINATE.length && chunk.subarray(-TERMINATE.length).equals(TERMINATE);
      if (!lastFromClient && !chunk.equals(TERMINATE)) {
        state.flights++;
        countedWait = waiting.size === 0;
        if (countedWait) state.waits++;
        // BENCH_TRACE: what each flight carried (the printable part of its first chunk).
        state.trace?.push(
          `${waiting.size === 0 ? 'wait' : 'overlap'} conn${n}: ${chunk
            .toString('latin1')
            .replace(/[^\x20-\x7e]+/g, ' ')
            .slice(0, 160)}`,
        );
        waiting.add(id);
        lastFromClient = true;
      }
      if (terminates && lastFromClient && waiting.has(id)) {
        // Written on the way out: the client did not wait for this flight's answer.
        if (countedWait) state.waits--;
        countedWait = false;
        waiting.delete(id);
        state.trace?.push(`  (conn${n} ended without waiting for that answer: no wait)`);
      }
      pass(upstream, chunk);
    });
    upstream.on('data', (chunk) => {
      lastFromClient = false;
      waiting.delete(id);
      pass(client, chunk);
    });
    const close = () => {
      waiting.delete(id);
      const end = () => {
        client.destroy();
        upstream.destroy();
        sockets.delete(client);
        sockets.delete(upstream);
      };
      if (state.delayMs === 0) end();
      else setTimeout(end, state.delayMs + 1);
    };
    client.on('close', close).on('error', close);
    upstream.on('close', close).on('error', close);
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, listenHost, resolve);
  });
  return {
    port: server.address().port,
    state,
    reset() {
      state.waits = 0;
      state.flights = 0;
      state.connections = 0;
      if (state.trace) state.trace = [];
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
