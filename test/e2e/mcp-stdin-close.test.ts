/**
 * A client that closes schedctl mcp's stdin right after its last request (a script piping
 * requests in, a client shutting down) still gets every answer: the calls under way finish,
 * a booking that left is settled in the ledger, then the server ends (exit 0).
 */
import { describe, expect, it } from 'vitest';
import { ledgerRows } from '../helpers/ledger-db.js';
import { show } from '../helpers/cli.js';
import { useSandbox } from '../helpers/sandbox.js';

const t = useSandbox();

const lines = (...messages: object[]) => messages.map((m) => `${JSON.stringify({ jsonrpc: '2.0', ...m })}\n`).join('');
const opening = [
  {
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
  },
  { method: 'notifications/initialized' },
];

describe('schedctl mcp with stdin closed behind the last request', () => {
  it('answers a call under way, and settles a booking that left, before it ends', async () => {
    const s = await t.sb.slots('intro-call', 14);
    // Both calls are still waiting on the server when stdin ends.
    await t.sb.fault({ method: 'GET', path: '/v1/triggers', fault: 'delay', delayMs: 800, count: 1 });
    await t.sb.fault({ method: 'POST', path: '/v1/scheduling/meetings', fault: 'delay', delayMs: 800, count: 1 });
    const input = lines(
      ...opening,
      { id: 2, method: 'tools/call', params: { name: 'list_triggers', arguments: {} } },
      {
        id: 3,
        method: 'tools/call',
        params: {
          name: 'book_meeting',
          arguments: {
            event: 'intro-call',
            start: s.slots[0],
            reservation_id: s.reservationId,
            email: 'piped@acme.example',
          },
        },
      },
    );
    const r = await t.sb.cli(['mcp'], { configDir: t.dir, input });
    expect(r.code, show(r)).toBe(0);
    const answers = r.stdout
      .trim()
      .split('\n')
      .map(
        (l) =>
          JSON.parse(l) as { id?: number; result?: { isError?: boolean; structuredContent?: Record<string, unknown> } },
      );
    expect(answers.map((a) => a.id).sort(), show(r)).toEqual([1, 2, 3]);
    const booked = answers.find((a) => a.id === 3)!.result!;
    expect(booked.isError ?? false, show(r)).toBe(false);
    expect(booked.structuredContent).toMatchObject({ status: 'booked' });
    expect((await t.sb.state()).meetings).toHaveLength(1);
    expect(ledgerRows<{ outcome: string }>(t.dir, 'attempts').map((a) => a.outcome)).toEqual(['booked']);
  });
});
