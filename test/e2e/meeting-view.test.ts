/**
 * The human views of a booked meeting (book, reschedule and route share it) and of an event:
 * one time per line, in the display zone; an in-person meeting's place labelled "location",
 * not shown as a link; questions numbered from 1; a scheduling link named as such.
 */
import { describe, expect, it } from 'vitest';
import { show } from '../helpers/cli.js';
import { useSandbox } from '../helpers/sandbox.js';

const t = useSandbox();

async function book(event: string, tz: string) {
  const { reservationId, slots: free } = await t.sb.slots(event, 14);
  const r = await t.sb.cli(
    ['book', event, '--start', free[0]!, '--reservation', reservationId, '--email', 'ada@acme.example', '--tz', tz],
    { configDir: t.dir },
  );
  expect(r.code, show(r)).toBe(0);
  return r.stdout;
}

describe('the meeting view', () => {
  it('labels an in-person meeting\'s place "location", and shows one time, in the display zone', async () => {
    const out = await book('strategy-session', 'Europe/Berlin');
    expect(out).toMatch(/^ {2}location +1 Market St, San Francisco, CA$/m);
    expect(out).not.toMatch(/^ {2}link\b/m);
    const times = out.split('\n').filter((l) => /^ {2}time\b/.test(l));
    expect(times).toHaveLength(1);
    expect(times[0]).toMatch(/^ {2}time +\d{4}-\d\d-\d\d \d\d:\d\d GMT\+\d+ \(Europe\/Berlin\), 60 min$/);
  });

  it('shows an online meeting\'s link as "link"', async () => {
    const out = await book('intro-call', 'UTC');
    expect(out).toMatch(/^ {2}link +https:\/\/\S+$/m);
    expect(out).not.toMatch(/^ {2}location\b/m);
    expect(out).toMatch(/^ {2}time +\d{4}-\d\d-\d\d \d\d:\d\d UTC, 15 min$/m);
  });
});

describe('events show', () => {
  it('numbers the questions from 1', async () => {
    const r = await t.sb.cli(['events', 'show', 'product-demo'], { configDir: t.dir });
    expect(r.code, show(r)).toBe(0);
    expect(r.stdout).toMatch(/^#\s+TITLE/m);
    expect(r.stdout).toMatch(/^1\s+Work email/m);
    expect(r.stdout).not.toMatch(/^0\s/m);
    expect(r.stdout).not.toContain('scheduling link');
  });

  it('says when the id or slug asked for is a scheduling link, and which event it resolves to', async () => {
    const r = await t.sb.cli(['events', 'show', 'sales-emea'], { configDir: t.dir });
    expect(r.code, show(r)).toBe(0);
    expect(r.stdout.split('\n')[0]).toBe(
      "scheduling link sales-emea (resolves to event Product Demo, product-demo; the hosts are the link's)",
    );
    expect(r.stdout).toMatch(/Amelia Hart/);
    expect(r.stdout).not.toMatch(/Ben Carter/);
    // By the event's own id: no link line.
    const id = (await t.sb.cli(['events', 'show', 'product-demo', '--json'], { configDir: t.dir })).json().id as string;
    const byId = await t.sb.cli(['events', 'show', id], { configDir: t.dir });
    expect(byId.stdout).not.toContain('scheduling link');
  });
});
