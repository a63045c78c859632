/**
 * Issue 52 finding 8: a record belongs to its lead. A sandbox started without --state handed out
 * the same meeting ids after a restart, and the next booking replaced the earlier lead's record
 * (`meetings show <id>` became the other lead's; `meetings ls --all --email lin@…` found nothing).
 * The ledger keeps both and says so; `schedctl sandbox` without --seed never reissues an id.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { demoRouteFirstArgs } from '../helpers/args.js';
import { BIN, baseEnv, registerSecret, show, tempDir } from '../helpers/cli.js';
import { useSandbox } from '../helpers/sandbox.js';

const t = useSandbox();
const cli = (args: string[]) => t.sb.cli(args, { configDir: t.dir });

describe('issue 52 finding 8: a meeting id answered for another lead', () => {
  it("never overwrites the first lead's record: both kept, the clash said naming both leads and the id", async () => {
    const lin = await cli([...demoRouteFirstArgs('lin@acme.example'), '--json']);
    expect(lin.code, show(lin)).toBe(0);
    const id = lin.json().meeting.id as string;
    // The sandbox starts over with the seed's ids (as a restart without --state did): the same id again.
    await t.sb.reset();
    const zed = await cli([...demoRouteFirstArgs('zed@acme.example'), '--json']);
    expect(zed.code, show(zed)).toBe(0);
    expect(zed.json().meeting.id, 'the sandbox reissued the id').toBe(id);
    expect(zed.stderr).toContain(`meeting id ${id}`);
    expect(zed.stderr).toContain('lin@acme.example');
    expect(zed.stderr).toContain('zed@acme.example');

    const shown = await cli(['meetings', 'show', id, '--json']);
    expect(shown.code, show(shown)).toBe(0);
    expect(shown.json().personEmail).toBe('lin@acme.example');
    const ofLin = await cli(['meetings', 'ls', '--all', '--email', 'lin@acme.example', '--json']);
    expect(ofLin.code, show(ofLin)).toBe(0);
    expect(ofLin.json().map((m: { id: string }) => m.id)).toEqual([id]);
    const ofZed = await cli(['meetings', 'ls', '--all', '--email', 'zed@acme.example', '--json']);
    expect(ofZed.json().map((m: { id: string; personEmail: string }) => [m.id, m.personEmail])).toEqual([
      [id, 'zed@acme.example'],
    ]);
    // Each lead still has its meeting to the booking rule: neither is booked again.
    const again = await cli([...demoRouteFirstArgs('lin@acme.example', 'apac'), '--json']);
    expect(again.code, show(again)).toBe(5);
    expect(again.json().error).toMatchObject({ code: 'LEAD_HAS_MEETING' });
    // Each lead's timeline holds its own meeting under the one id, the other's never.
    for (const email of ['lin@acme.example', 'zed@acme.example']) {
      const entries = (await cli(['meetings', 'history', email, '--json'])).json().entries as Array<{
        kind: string;
        meetingId?: string;
      }>;
      expect(
        entries.filter((e) => e.kind === 'meeting').map((e) => e.meetingId),
        email,
      ).toEqual([id]);
    }
  });
});

let children: ChildProcessWithoutNullStreams[] = [];
afterEach(() => {
  for (const c of children) c.kill('SIGKILL');
  children = [];
});

/** Starts `schedctl sandbox --json` (args added), asks one slots request, stops it: the reservation id handed out. */
async function firstReservation(args: string[]): Promise<string> {
  const child = spawn(process.execPath, [BIN, 'sandbox', '--port', '0', '--json', ...args], {
    env: baseEnv(tempDir()),
  });
  children.push(child);
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      if (out.includes('\n')) resolve(out.trim());
    });
    child.on('exit', () => reject(new Error(`the sandbox exited\n${out}`)));
  });
  const doc = JSON.parse(line) as { baseUrl: string; keys: { full: string; readOnly: string; revoked: string } };
  registerSecret(doc.keys.full, doc.keys.readOnly, doc.keys.revoked);
  const start = new Date();
  const res = await fetch(`${doc.baseUrl}/v1/scheduling/events/intro-call/slots`, {
    method: 'POST',
    headers: { authorization: `Bearer ${doc.keys.full}`, 'content-type': 'application/json' },
    body: JSON.stringify({ start: start.toISOString(), end: new Date(start.getTime() + 7 * 86_400_000).toISOString() }),
  });
  expect(res.status).toBe(200);
  const { reservationId } = (await res.json()) as { reservationId: string };
  const exited = new Promise((r) => child.on('exit', r));
  child.kill('SIGTERM');
  await exited;
  return reservationId;
}

describe('issue 52 finding 8: schedctl sandbox restarted without --state', () => {
  it("hands out new ids each start; with --seed, the seed's ids start after start", async () => {
    const [a, b] = [await firstReservation([]), await firstReservation([])];
    expect(a).not.toBe(b);
    const [c, d] = [await firstReservation(['--seed', '7']), await firstReservation(['--seed', '7'])];
    expect(c).toBe(d);
  });
});
