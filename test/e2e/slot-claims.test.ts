/**
 * Two runs of one workspace booking one link (state/slot-claims.ts): a run whose page offers a
 * time another lead's booking is taking (sent, its answer not in yet) books the next free time
 * instead, sending no booking the server would refuse with SLOT_TAKEN (without the claim, the
 * second run's booking lands first and the delayed one is answered 409). Over one machine's
 * ledger here; the same reads on a team state are in the backend contract suite.
 */
import { describe, expect, it } from 'vitest';
import { demoRouteFirstArgs } from '../helpers/args.js';
import { runCli, show } from '../helpers/cli.js';
import { describeRun, sleep, startCli } from '../helpers/parallel-run.js';
import { useSandbox } from '../helpers/sandbox.js';

const t = useSandbox({ holdSeconds: 60 });
const BOOK_PATH = '/v1/scheduling/meetings';

describe('a time another run is booking', () => {
  it('is skipped for the next free one: no SLOT_TAKEN, one meeting each, and stderr says why', async () => {
    const env = { SCHEDCTL_BASE_URL: t.sb.baseUrl, SCHEDCTL_API_KEY: t.sb.keys.full };
    // The first run's booking answer comes late: the second run fetches its times meanwhile.
    await t.sb.fault({ method: 'POST', path: BOOK_PATH, fault: 'delay', delayMs: 3000, count: 1 });
    const first = startCli([...demoRouteFirstArgs('first@acme.example', 'emea'), '--json'], {
      configDir: t.dir,
      env,
      timeoutMs: 60_000,
    });
    const booking = async () => (await t.sb.state()).requests.some((q) => q.method === 'POST' && q.path === BOOK_PATH);
    for (const deadline = Date.now() + 20_000; !(await booking()) && Date.now() < deadline;) await sleep(20);
    const second = await runCli([...demoRouteFirstArgs('second@acme.example', 'emea'), '--json', '--debug'], {
      configDir: t.dir,
      env,
    });
    const done = await first.done;
    expect(done.code, describeRun(done)).toBe(0);
    expect(second.code, show(second)).toBe(0);
    const [a, b] = [JSON.parse(done.stdout).meeting, second.json().meeting];
    expect(b.date, 'the second run books another time').not.toBe(a.date);
    expect(second.stderr).toContain('is being booked, or was just booked, by another run of this workspace');
    // Refused in the send hook, not tried again (another try would only draw from the budget): two
    // bookings begun, the claimed time's and the next one's.
    expect(second.stderr.match(/→ POST \/v1\/scheduling\/meetings/g)).toHaveLength(2);
    const books = (await t.sb.state()).requests.filter((q) => q.method === 'POST' && q.path === BOOK_PATH);
    expect(books.map((q) => q.status)).toEqual([201, 201]);
  });
});
