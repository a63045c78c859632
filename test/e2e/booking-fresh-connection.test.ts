/**
 * Issue 52 finding 9: a booking never rides a connection the server may have closed. A server
 * that resets a kept-alive connection right after the slots answer (here a forwarder that resets
 * the connection when the next request is written into it) must not turn a booking that never
 * reached it into exit 7 "it almost certainly succeeded": the booking (and a move, journaled
 * too) goes on a connection of its own, and books once.
 */
import { DateTime } from 'luxon';
import { afterEach, describe, expect, it } from 'vitest';
import { demoRouteFirstArgs } from '../helpers/args.js';
import { show } from '../helpers/cli.js';
import { startKeepAliveReset, type KeepAliveReset } from '../helpers/keepalive-reset.js';
import { useSandbox } from '../helpers/sandbox.js';

const t = useSandbox();
let fwd: KeepAliveReset | undefined;
afterEach(async () => {
  await fwd?.close();
  fwd = undefined;
});

const via = (args: string[]) => t.sb.cli(args, { configDir: t.dir, env: { SCHEDCTL_BASE_URL: fwd!.baseUrl } });

describe('issue 52 finding 9: the server resets the kept-alive connection after the slots answer', () => {
  it('route books once on a fresh connection: exit 0, one meeting, the booking seen once by the forwarder', async () => {
    fwd = await startKeepAliveReset(t.sb.baseUrl, /\/slots$/);
    const email = 'fresh-conn@acme.example';
    const r = await via([...demoRouteFirstArgs(email), '--json']);
    expect(r.code, show(r)).toBe(0);
    expect(r.json()).toMatchObject({ status: 'booked' });
    expect(r.stderr).not.toMatch(/almost certainly/);
    const meetings = (await t.sb.state()).meetings.filter((m) => m.personEmail === email);
    expect(meetings).toHaveLength(1);
    expect(fwd.seen.filter((s) => s === 'POST /v1/scheduling/meetings')).toHaveLength(1);
    // The timeline holds one booking, booked: the try whose bytes never left is no attempt at all.
    const entries = (await via(['meetings', 'history', email, '--json'])).json().entries as Array<{
      kind: string;
      outcome?: string;
    }>;
    expect(entries.filter((e) => e.kind === 'booking').map((e) => e.outcome)).toEqual(['booked']);
  });

  it('reschedule: a searched move (its PATCH journaled as a booking is) goes on a fresh connection too', async () => {
    const email = 'fresh-move@acme.example';
    const { reservationId, slots } = await t.sb.slots('product-demo', 21);
    const utc = (iso: string) => DateTime.fromISO(iso, { zone: 'UTC' });
    const soon = DateTime.utc().plus({ days: 5 }).startOf('day');
    const at = slots.find((x) => utc(x) >= soon && utc(x).hour === 15 && utc(x).minute === 0 && utc(x).weekday <= 5)!;
    // Booked through the forwarder too (the same workspace); `book` of a held time asks no slots.
    fwd = await startKeepAliveReset(t.sb.baseUrl, /\/slots$/);
    const booked = await via([
      'book',
      'product-demo',
      '--start',
      at,
      '--reservation',
      reservationId,
      '--email',
      email,
      '--json',
    ]);
    expect(booked.code, show(booked)).toBe(0);
    const later = slots.filter((x) => !utc(x).hasSame(utc(at), 'day') && utc(x) > utc(at));
    const day = utc(later.find((x) => utc(x).weekday <= 5 && utc(x).hour === 13)!);
    // The search asks the day's free times first; the forwarder resets that connection at the PATCH.
    const moved = await via([
      'reschedule',
      '--email',
      email,
      '--start',
      `first ${day.toFormat('ccc LLL d').toLowerCase()}`,
      '--tz',
      'UTC',
      '--json',
    ]);
    expect(moved.code, show(moved)).toBe(0);
    expect(fwd.seen.filter((s) => s.startsWith('PATCH '))).toHaveLength(1);
    const meetings = (await t.sb.state()).meetings.filter((m) => m.personEmail === email);
    expect(meetings).toHaveLength(1);
    expect(utc(meetings[0]!.date).hasSame(day, 'day')).toBe(true);
  });
});
