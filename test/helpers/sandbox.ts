/**
 * End-to-end tests talk to a real sandbox over HTTP on 127.0.0.1, started in-process.
 * These helpers start one, point the CLI at it, and read or steer it through its hooks.
 */
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/server.js';
import { registerSecret, runCli, tempDir, type RunOptions, type RunResult } from './cli.js';

export interface TestSandbox extends Sandbox {
  configDir: string;
  /** Runs the CLI against this sandbox with the full key (or `key`) in SCHEDCTL_API_KEY. */
  cli(args: string[], opts?: RunOptions & { key?: 'full' | 'readOnly' | 'revoked' }): Promise<RunResult>;
  state(): Promise<SandboxState>;
  fault(rule: Record<string, unknown>): Promise<void>;
  /** The next `count` requests to `method path` (`*`: one path segment) answered `status` with error `code`. */
  refuse(method: string, path: string, status: number, code: string, count?: number): Promise<void>;
  clearFaults(): Promise<void>;
  /** Lets every request a `delay` fault holds go on now (POST /_sandbox/faults/release): how many. */
  releaseDelays(): Promise<number>;
  advance(seconds: number): Promise<void>;
  reset(): Promise<void>;
  /** Number of /v1 requests the sandbox has received so far. */
  requestCount(): Promise<number>;
  /**
   * The free times of `event` from now for `days` days and their new reservation, asked over HTTP
   * with the full key: the request `schedctl slots EVENT --days N --json` sends, and its document,
   * for tests that only need a time and a reservation to book (no CLI process spent on it).
   */
  slots(event: string, days?: number): Promise<SlotsAnswer>;
}

export interface SlotsAnswer {
  reservationId: string;
  eventId: string;
  expiresAt: string;
  slots: string[];
  activeHost: unknown;
}

export interface SandboxState {
  now: string;
  meetings: Array<{
    id: string;
    eventId: string;
    event: string;
    date: string;
    status: string;
    personEmail: string;
    workflowExecutionId: string | null;
  }>;
  reservations: Array<{ id: string; eventId: string; event: string; expiresAt: string; status: string }>;
  executions: Array<{
    id: string;
    triggerId: string;
    email: string;
    outcome: { type: string };
    meetingId: string | null;
    sessionEnded: boolean;
  }>;
  requests: Array<{ method: string; path: string; status: number | null; key: string | null }>;
}

export async function startTestSandbox(options: SandboxOptions = {}): Promise<TestSandbox> {
  // Two minutes' notice: a test that books the first slot offered cannot see it slip into the past.
  const sb = await startSandbox({ rateLimit: 0, slotNoticeSeconds: 120, ...options });
  registerSecret(sb.keys.full, sb.keys.readOnly, sb.keys.revoked);
  const configDir = tempDir();
  const hook = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${sb.baseUrl}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    if (!res.ok) throw new Error(`${method} ${path} -> ${res.status} ${await res.text()}`);
    return res.json() as Promise<unknown>;
  };
  return {
    ...sb,
    configDir,
    cli: (args, opts = {}) =>
      runCli(args, {
        configDir,
        ...opts,
        env: { SCHEDCTL_BASE_URL: sb.baseUrl, SCHEDCTL_API_KEY: sb.keys[opts.key ?? 'full'], ...opts.env },
      }),
    state: () => hook('GET', '/_sandbox/state') as Promise<SandboxState>,
    fault: async (rule) => {
      await hook('POST', '/_sandbox/faults', rule);
    },
    refuse: async (method, path, status, code, count = 1) => {
      await hook('POST', '/_sandbox/faults', { method, path, fault: 'status', status, code, count });
    },
    clearFaults: async () => {
      await hook('DELETE', '/_sandbox/faults');
    },
    releaseDelays: async () => ((await hook('POST', '/_sandbox/faults/release')) as { released: number }).released,
    advance: async (seconds) => {
      await hook('POST', '/_sandbox/clock', { advanceSeconds: seconds });
    },
    reset: async () => {
      await hook('POST', '/_sandbox/reset');
    },
    requestCount: async () => ((await hook('GET', '/_sandbox/state')) as SandboxState).requests.length,
    slots: async (event, days = 14) => {
      const start = new Date();
      const end = new Date(start.getTime() + days * 86_400_000);
      const res = await fetch(`${sb.baseUrl}/v1/scheduling/events/${encodeURIComponent(event)}/slots`, {
        method: 'POST',
        headers: { authorization: `Bearer ${sb.keys.full}`, 'content-type': 'application/json' },
        body: JSON.stringify({ start: start.toISOString(), end: end.toISOString() }),
      });
      if (!res.ok) throw new Error(`slots of ${event} -> ${res.status} ${await res.text()}`);
      return res.json() as Promise<SlotsAnswer>;
    },
  };
}

/** What `useSandbox` gives a test file; read its fields inside hooks and tests (they are set by then). */
export interface SandboxFixture {
  /** One sandbox for the whole file, reset before each test. */
  readonly sb: TestSandbox;
  /**
   * A fresh config dir (and so a fresh journal and outcome memory) for each test: after a reset the
   * sandbox reuses ids. A test may replace it to play a second machine.
   */
  dir: string;
}

/**
 * Registers the file's sandbox hooks: start one before all tests (with `options`), close it after
 * them, and before each test reset it and make a fresh config dir. Hooks a file adds later run after these.
 */
export function useSandbox(options: SandboxOptions = {}): SandboxFixture {
  let sb: TestSandbox | undefined;
  let dir = '';
  beforeAll(async () => {
    sb = await startTestSandbox(options);
  });
  // Optional: if starting failed, that is the error to see, not a second one from here.
  afterAll(async () => sb?.close());
  beforeEach(async () => {
    await fixture.sb.reset();
    dir = tempDir();
  });
  const fixture: SandboxFixture = {
    get sb() {
      if (!sb) throw new Error('the sandbox is started in beforeAll: use it inside hooks and tests');
      return sb;
    },
    get dir() {
      return dir;
    },
    set dir(value: string) {
      dir = value;
    },
  };
  return fixture;
}
