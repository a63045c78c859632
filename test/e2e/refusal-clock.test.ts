/**
 * Issue 52 finding 6: a server's clock does not decide how long a refusal lasts. A move's 409
 * CONFLICT answers behind a forwarder that dates them `Fri, 31 Dec 9999` were kept as refused at
 * 9999 and never lapsed: an hour later, with honest clocks, the whole day stayed blocked
 * (exit 4 NO_SLOTS, nothing tried). Refusals are dated by the earlier of both clocks, one dated
 * in the future is not believed, and what a meeting's record keeps of them is bounded.
 */
import { DateTime } from 'luxon';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_REFUSALS_KEPT, REFUSAL_LAPSE_MS, REFUSAL_SERVER_LEAD_MS } from '../../src/domain/move-search.js';
import { show } from '../helpers/cli.js';
import { startDateForwarder, type DateForwarder } from '../helpers/date-forwarder.js';
import { ledgerRows } from '../helpers/ledger-db.js';
import { useSandbox } from '../helpers/sandbox.js';
import { skewedClockEnv } from '../helpers/skewed-clock.js';

const t = useSandbox();
let fwd: DateForwarder | undefined;
afterEach(async () => {
  await fwd?.close();
  fwd = undefined;
});
const utc = (iso: string) => DateTime.fromISO(iso, { zone: 'UTC' });
const via = (args: string[], env: Record<string, string> = {}) =>
  t.sb.cli(args, { configDir: t.dir, env: { SCHEDCTL_BASE_URL: fwd!.baseUrl, ...env } });

describe('issue 52 finding 6: refusals answered under a server clock dated 9999', () => {
  it('lapse after the hour like any other: a later honest search moves the meeting; the record keeps them bounded and dated by this clock', async () => {
    fwd = await startDateForwarder(t.sb.baseUrl);
    const email = 'refused-9999@acme.example';
    const { reservationId, slots } = await t.sb.slots('product-demo', 21);
    const soon = DateTime.utc().plus({ days: 5 }).startOf('day');
    const at = slots.find((x) => utc(x) >= soon && utc(x).hour === 15 && utc(x).minute === 0 && utc(x).weekday <= 5)!;
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
    const search = [
      'reschedule',
      '--email',
      email,
      '--start',
      `first ${day.toFormat('ccc LLL d').toLowerCase()} afternoon`,
    ];
    const args = [...search, '--tz', 'UTC', '--tries', '20', '--json'];

    // Every PATCH refused, each answer dated 9999: the day's free times all refused.
    fwd.setDate(() => 'Fri, 31 Dec 9999 23:59:59 GMT');
    await t.sb.fault({
      method: 'PATCH',
      path: '/v1/scheduling/meetings/*',
      fault: 'status',
      status: 409,
      code: 'CONFLICT',
      count: 100,
    });
    // Each run tries up to 20 times not refused; three runs (today's main: until none is left).
    for (let run = 0; run < 3; run++) {
      const r = await via(args);
      expect([4, 5], show(r)).toContain(r.code);
    }
    const tried = (await t.sb.state()).requests.filter((r) => r.method === 'PATCH').length;
    expect(tried).toBeGreaterThan(1);

    const [record] = ledgerRows<{ id: string; refused?: { startTime: string; at: string }[] }>(t.dir, 'meetings');
    expect(record!.refused!.length).toBeGreaterThan(1);
    expect(record!.refused!.length).toBeLessThanOrEqual(MAX_REFUSALS_KEPT);
    // Dated by this machine's clock (at most a day ahead), not the server's 9999.
    for (const r of record!.refused!) expect(Date.parse(r.at)).toBeLessThanOrEqual(Date.now() + REFUSAL_SERVER_LEAD_MS);
    // The lead's timeline shows them as they are: refusals, dated by that clock.
    const entries = (await via(['meetings', 'history', email, '--json'])).json().entries as Array<{
      kind: string;
      at: string;
    }>;
    const refusals = entries.filter((e) => e.kind === 'move_refused');
    expect(refusals).toHaveLength(record!.refused!.length);
    for (const e of refusals) expect(Date.parse(e.at)).toBeLessThanOrEqual(Date.now() + REFUSAL_SERVER_LEAD_MS);

    // An hour later on both clocks, the server honest and accepting again: the day is open.
    await t.sb.clearFaults();
    fwd.setDate((d) => d);
    const hour = REFUSAL_LAPSE_MS + 60_000;
    await t.sb.advance(hour / 1000);
    const moved = await via(args, skewedClockEnv(hour));
    expect(moved.code, show(moved)).toBe(0);
    const meeting = (await t.sb.state()).meetings.find((m) => m.personEmail === email)!;
    expect(utc(meeting.date).hasSame(day, 'day')).toBe(true);
  });
});
