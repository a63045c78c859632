/**
 * The transport (api/transport.ts) never writes a request that must not be repeated into a
 * kept-alive connection, however briefly idle (a server may be closing it as the request is
 * written: a booking's ECONNRESET reads as a lost answer; issue 52 finding 9), while other
 * requests keep using it. Over a real node:http server that counts the connections it accepts.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { asUnrepeatable } from '../../src/api/send-hook.js';
import { nodeFetch } from '../../src/api/transport.js';

let server: Server | undefined;
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = undefined;
});

async function countingServer(): Promise<string> {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.end('{}'));
  });
  server.on('connection', (s: Socket) => sockets.push(s));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/x`;
}

const send = async (url: string, method = 'GET') => {
  const res = await nodeFetch(new Request(url, { method, ...(method === 'GET' ? {} : { body: '{}' }) }));
  await res.text();
  return res.status;
};
const idle = () => new Promise((r) => setTimeout(r, 50));

describe('a request that must not be repeated, after a kept-alive connection answered', () => {
  it('gets a connection of its own; a repeatable request keeps using the idle one', async () => {
    const url = await countingServer();
    expect(await send(url)).toBe(200);
    expect(sockets).toHaveLength(1);
    await idle();
    expect(await send(url)).toBe(200);
    expect(sockets, 'a repeatable request reuses the idle connection').toHaveLength(1);
    await idle();
    expect(await asUnrepeatable(() => send(url, 'POST'))).toBe(200);
    expect(sockets, 'the unrepeatable request opened its own').toHaveLength(2);
    expect(sockets[0]!.destroyed, 'the idle connection was closed').toBe(true);
  });
});
