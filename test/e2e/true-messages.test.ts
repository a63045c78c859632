/**
 * Messages that say what is true (issue 46, item 10): a zero timeout, a base URL that doubles
 * /v1, the completion install lines, an unknown reservation, a start off the event's grid, the
 * --json help of bulk runs; and the lock file that a fresh `npm install` must not rewrite.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bookSlotArgs, demoRouteFirstArgs } from '../helpers/args.js';
import { runCli, show } from '../helpers/cli.js';
import { useSandbox } from '../helpers/sandbox.js';

const t = useSandbox();
const root = join(import.meta.dirname, '../..');
const cli = (args: string[], env: Record<string, string> = {}) => t.sb.cli(args, { configDir: t.dir, env });
async function slots(event: string): Promise<{ reservationId: string; slots: string[] }> {
  return t.sb.slots(event, 7);
}

describe('item 10: messages that are true', () => {
  it('a re-run after an error answer to a booking says it got one (a 502), not that its answer was lost', async () => {
    await t.sb.fault({ method: 'POST', path: '/v1/scheduling/meetings', fault: 'html' });
    const first = await cli(demoRouteFirstArgs('err-answer@acme.example'));
    expect(first.code, show(first)).toBe(7);
    const again = await cli(demoRouteFirstArgs('err-answer@acme.example'));
    expect(again.stderr).toContain("an earlier run's booking for err-answer@acme.example (");
    expect(again.stderr).toContain(
      'got an error answer that does not say whether it booked: sending that attempt again',
    );
    expect(again.stderr).not.toContain('was lost');
  });

  it('--timeout 0 is refused as what it is: the timeout must be greater than 0', async () => {
    const r = await cli(['triggers', 'ls', '--timeout', '0']);
    expect(r.code, show(r)).toBe(2);
    expect(r.stderr).toContain(
      'invalid --timeout "0": expected a number of seconds greater than 0 and at most 3600 (0 would give no time at all)',
    );
    expect(await t.sb.requestCount()).toBe(0);
  });

  it('a base URL ending in /v1 gets a hint to drop it', async () => {
    const r = await cli(['triggers', 'ls'], { SCHEDCTL_BASE_URL: `${t.sb.baseUrl}/v1` });
    expect(r.code, show(r)).toBe(4);
    expect(r.stderr).toContain('/v1/v1/triggers');
    expect(r.stderr).toMatch(
      /^hint: the base URL ends in \/v1 and every API path starts with \/v1 \(this request went to \/v1\/v1\/triggers\): drop the \/v1 from --base-url, SCHEDCTL_BASE_URL or the profile's URL$/m,
    );
    // Without the doubled /v1, a 404 has no such hint.
    const plain = await cli(['trigger', 'fire', 'no-such-trigger', '--email', 'a@acme.example']);
    expect(plain.stderr).not.toContain('ends in /v1');
  });

  it("completion --help's install lines are those of docs/completions.md, mkdir -p included", async () => {
    const help = await runCli(['completion', '--help']);
    expect(help.code).toBe(0);
    const doc = readFileSync(join(root, 'docs/completions.md'), 'utf8');
    const docLines = [...doc.matchAll(/^(mkdir -p \S+|schedctl completion \w+ > \S+)$/gm)].map((m) => m[1]!);
    expect(docLines.filter((l) => l.startsWith('mkdir -p'))).toHaveLength(3);
    for (const line of docLines) expect(help.stdout, line).toContain(line);
  });

  it('a booking whose reservation is unknown names the reservation, not only the event', async () => {
    const s = await slots('intro-call');
    const unknown = '00000000-0000-4000-8000-000000000000';
    const r = await cli(bookSlotArgs('intro-call', s.slots[0]!, unknown, 'lead@acme.example'));
    expect(r.code, show(r)).toBe(4);
    expect(r.stderr).toContain(`Reservation ${unknown} does not exist.`);
    expect(r.stderr).toMatch(
      new RegExp(
        `^hint: one of 2 ids is unknown to the API: check the event or link "intro-call" \\(\`schedctl events ls\`\\) and the --reservation id ${unknown} \\(a reservation comes from \`schedctl slots intro-call\`: fetch a new one\\)$`,
        'm',
      ),
    );
  });

  it("a start off the event's grid is said as not a start time, with the increment and the nearest free times", async () => {
    const s = await slots('intro-call');
    const event = (await cli(['events', 'show', 'intro-call', '--json'])).json<{ timeslotIncrement: number }>();
    const step = event.timeslotIncrement;
    // Between two starts of the grid: the sandbox answers NO_HOST_AVAILABLE, as for a busy time.
    const offGrid = new Date(Date.parse(s.slots[0]!) + Math.floor(step / 2) * 60_000).toISOString();
    const r = await cli([...bookSlotArgs('intro-call', offGrid, s.reservationId, 'lead@acme.example'), '--tz', 'UTC']);
    expect(r.code, show(r)).toBe(5);
    expect(r.stderr).toContain('(NO_HOST_AVAILABLE, HTTP 409)');
    expect(r.stderr).toMatch(
      new RegExp(
        `^hint: \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC is not a start time of intro-call: its meetings start every ${step} min \\(the nearest free: .+\\); book one with --start \\S+Z --reservation ${s.reservationId}$`,
        'm',
      ),
    );
    const json = await cli([...bookSlotArgs('intro-call', offGrid, s.reservationId, 'lead@acme.example'), '--json']);
    expect(json.json<{ error: { code: string; hint: string } }>().error).toMatchObject({
      code: 'NO_HOST_AVAILABLE',
      hint: expect.stringContaining(`is not a start time of intro-call: its meetings start every ${step} min`),
    });
    // A start on the grid that no host can take keeps the API's word and the usual hint.
    await t.sb.fault({
      method: 'POST',
      path: '/v1/scheduling/meetings',
      fault: 'status',
      status: 409,
      code: 'NO_HOST_AVAILABLE',
    });
    const onGrid = await cli([...bookSlotArgs('intro-call', s.slots[0]!, s.reservationId, 'a@acme.example'), '--json']);
    expect(onGrid.code, show(onGrid)).toBe(5);
    expect(onGrid.json<{ error: { hint: string } }>().error.hint).toMatch(
      /^no host is free at that time: pick another slot/,
    );
    expect((await cli(bookSlotArgs('intro-call', s.slots[0]!, s.reservationId, 'a@acme.example'))).code).toBe(0);
  });

  it('--help says --json prints JSON Lines for a bulk --file run', async () => {
    const r = await runCli(['--help']);
    expect(r.stdout.replace(/\s+/g, ' ')).toContain('a --file run: JSON Lines, one per row then a summary');
  });
});

describe('item 10: the lock file', () => {
  it('says what package.json says of the root package, so npm install leaves it as it is', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Record<string, unknown>;
    const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as {
      name: string;
      version: string;
      packages: Record<string, Record<string, unknown>>;
    };
    const top = lock.packages['']!;
    expect({ name: lock.name, version: lock.version }).toEqual({ name: pkg.name, version: pkg.version });
    expect(top.engines).toEqual(pkg.engines);
    expect(top.devDependencies).toEqual(pkg.devDependencies);
    expect(top.bin).toEqual(pkg.bin);
    expect(top.license).toEqual(pkg.license);
  });
});
