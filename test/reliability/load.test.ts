/**
 * The sandbox under load: concurrent bookings of one slot create exactly one meeting, and a
 * sandbox stopped with SIGTERM mid-traffic keeps every meeting it confirmed (201) in its
 * --state file.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, show, tempDir } from '../helpers/cli.js';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';

describe('parallel clients on one slot', () => {
  let sb: TestSandbox;
  beforeAll(async () => {
    sb = await startTestSandbox();
  });
  afterAll(async () => sb.close());

  it('12 CLI bookings of the same slot, each with its own reservation: exactly one meeting, the rest SLOT_TAKEN', async () => {
    const N = 12;
    // A single-host link, so one booking fills the slot.
    const event = 'sales-emea';
    const headers = { authorization: `Bearer ${sb.keys.full}`, 'content-type': 'application/json' };
    const start = new Date(Date.now() + 3600_000).toISOString();
    const end = new Date(Date.now() + 14 * 86400_000).toISOString();
    const reservations = await Promise.all(
      Array.from({ length: N }, async () => {
        const res = await fetch(`${sb.baseUrl}/v1/scheduling/events/${event}/slots`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ start, end }),
        });
        expect(res.status).toBe(200);
        return (await res.json()) as { reservationId: string; slots: string[] };
      }),
    );
    const slot = reservations[0]!.slots[0]!;
    const results = await Promise.all(
      reservations.map((r, i) =>
        sb.cli(
          [
            'book',
            event,
            '--start',
            slot,
            '--reservation',
            r.reservationId,
            '--email',
            `lead${i}@acme.example`,
            '--json',
          ],
          { configDir: tempDir(), timeoutMs: 60_000 },
        ),
      ),
    );
    const booked = results.filter((r) => r.code === 0);
    const taken = results.filter((r) => r.code === 5);
    expect(booked, results.map(show).join('\n---\n')).toHaveLength(1);
    expect(taken).toHaveLength(N - 1);
    for (const r of taken) expect(r.json().error.code, show(r)).toBe('SLOT_TAKEN');
    const meetings = (await sb.state()).meetings.filter((m) => m.date === slot);
    expect(meetings).toHaveLength(1);
    expect(meetings[0]!.id).toBe(booked[0]!.json().meeting.id);
  }, 90_000);
});

interface Running {
  child: ChildProcess;
  baseUrl: string;
  key: string;
  exited: Promise<number | null>;
}

/** `schedctl sandbox --state FILE --port 0 --json` as a real process: the first stdout line is its address and keys. */
async function startSandboxProcess(stateFile: string): Promise<Running> {
  const child = spawn(
    process.execPath,
    [BIN, 'sandbox', '--state', stateFile, '--port', '0', '--json', '--rate-limit', '0'],
    {
      env: { PATH: process.env.PATH ?? '', HOME: tempDir(), SCHEDCTL_CONFIG_DIR: tempDir(), NO_COLOR: '1', CI: 'true' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const first = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`sandbox exited ${code} before listening: ${stderr}`)));
  });
  const banner = JSON.parse(first) as { baseUrl: string; keys: { full: string } };
  return { child, baseUrl: banner.baseUrl, key: banner.keys.full, exited };
}

describe('SIGTERM during a booking loop', () => {
  it('loses no confirmed meeting: every 201 is still there after a restart on the same --state file', async () => {
    const stateFile = join(tempDir(), 'sandbox-state.json');
    const first = await startSandboxProcess(stateFile);
    const headers = { authorization: `Bearer ${first.key}`, 'content-type': 'application/json' };
    const confirmed: string[] = [];
    let stopped = false;
    const events = ['intro-call', 'strategy-session', 'onboarding', 'support-escalation'];

    // Several loops keep requests in flight when the signal lands.
    const loop = async (worker: number) => {
      for (let i = 0; !stopped; i++) {
        try {
          const event = events[(worker + i) % events.length]!;
          const start = new Date(Date.now() + 3600_000).toISOString();
          const end = new Date(Date.now() + 30 * 86400_000).toISOString();
          const slots = await fetch(`${first.baseUrl}/v1/scheduling/events/${event}/slots`, {
            method: 'POST',
            headers,
            body: JSON.stringify({ start, end }),
          });
          const s = (await slots.json()) as { reservationId: string; slots: string[] };
          const pick = s.slots[(worker * 7 + i) % s.slots.length]!;
          const book = await fetch(`${first.baseUrl}/v1/scheduling/meetings`, {
            method: 'POST',
            headers,
            body: JSON.stringify({
              startTime: pick,
              reservationId: s.reservationId,
              event,
              personEmail: `w${worker}-${i}@acme.example`,
            }),
          });
          const body = (await book.json()) as { id?: string };
          if (book.status === 201 && body.id) confirmed.push(body.id);
        } catch {
          return; // the sandbox went away
        }
      }
    };
    const loops = Promise.all([0, 1, 2].map(loop));
    // Let some bookings through, then stop it in the middle of traffic.
    const waitUntil = Date.now() + 20_000;
    while (confirmed.length < 15 && Date.now() < waitUntil) await new Promise((r) => setTimeout(r, 20));
    first.child.kill('SIGTERM');
    const code = await first.exited;
    stopped = true;
    await loops;
    expect(code).toBe(0);
    expect(confirmed.length).toBeGreaterThanOrEqual(15);

    const second = await startSandboxProcess(stateFile);
    try {
      const state = (await (await fetch(`${second.baseUrl}/_sandbox/state`)).json()) as {
        meetings: Array<{ id: string }>;
      };
      const kept = new Set(state.meetings.map((m) => m.id));
      const lost = confirmed.filter((id) => !kept.has(id));
      expect(lost, `confirmed ${confirmed.length}, kept ${kept.size}`).toEqual([]);
    } finally {
      second.child.kill('SIGTERM');
      await second.exited;
    }
  }, 60_000);
});
