/**
 * Issue 46 item 5: the MCP line transport refuses an over-long line as it arrives, with one
 * -32600, and keeps serving; each chunk is scanned once (no re-scan of what came before), so a
 * 10 MB line in 64 KB chunks completes at once. No timing is asserted: the test's timeout is generous.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { LineTransport } from '../../src/mcp/transport.js';

function transport() {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const written: any[] = [];
  stdout.on('data', (d: Buffer) => {
    for (const line of d.toString().split('\n')) if (line) written.push(JSON.parse(line));
  });
  const t = new LineTransport(stdin, stdout);
  const received: any[] = [];
  t.onmessage = (m) => received.push(m);
  return { t, stdin, written, received };
}

const ping = (id: number | string) => JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' });
const settle = () => new Promise((r) => setImmediate(r));

describe('LineTransport', () => {
  it('a 10 MB line sent in 64 KB chunks: one -32600, the rest dropped up to its newline, the next request served', async () => {
    const { t, stdin, written, received } = transport();
    await t.start();
    stdin.write(`${ping(0)}\n`);
    const chunk = 'x'.repeat(64 * 1024);
    for (let sent = 0; sent < 12 * 1024 * 1024; sent += chunk.length) stdin.write(chunk);
    stdin.write(`x\n${ping(1)}\n`);
    await settle();
    await settle();
    expect(written).toEqual([
      {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: 'Invalid Request: a line longer than 10485760 characters' },
      },
    ]);
    expect(received.map((m) => m.id)).toEqual([0, 1]);
  }, 60_000);

  it('an over-long line that ends within one chunk is refused too, once; lines split across chunks are joined', async () => {
    const { t, stdin, written, received } = transport();
    await t.start();
    stdin.write(`${'y'.repeat(10 * 1024 * 1024 + 1)}\n${ping('a').slice(0, 10)}`);
    stdin.write(`${ping('a').slice(10)}\r\n${ping('b')}\n`);
    await settle();
    expect(written.map((m) => m.error.code)).toEqual([-32600]);
    expect(received.map((m) => m.id)).toEqual(['a', 'b']);
  });

  it('a multi-byte character split across chunks arrives whole', async () => {
    const { t, stdin, received } = transport();
    await t.start();
    const bytes = Buffer.from(`${JSON.stringify({ jsonrpc: '2.0', id: 'ü€', method: 'ping' })}\n`);
    const at = bytes.indexOf(Buffer.from('€')) + 1;
    stdin.write(bytes.subarray(0, at));
    stdin.write(bytes.subarray(at));
    await settle();
    expect(received.map((m) => m.id)).toEqual(['ü€']);
  });
});

describe('LineTransport.send', () => {
  it('an error answer goes out without the "MCP error <code>: " a client adds again', async () => {
    const { t, written } = transport();
    await t.start();
    await t.send({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32602, message: 'MCP error -32602: Invalid tools/call result: x' },
    });
    await t.send({ jsonrpc: '2.0', id: 2, error: { code: -32002, message: 'Resource not found' } });
    await settle();
    expect(written.map((m) => m.error.message)).toEqual(['Invalid tools/call result: x', 'Resource not found']);
  });
});
