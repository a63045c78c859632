/**
 * Hostile and broken servers, beyond `api GET` (test/e2e/http-layer.test.ts covers that):
 * every command that reads or changes something fails clearly, with the documented exit code,
 * within its timeout, and never sends the key to another origin.
 * Reads (safe to repeat) end in exit 1; booking and firing (never repeated) in exit 7 whenever
 * the request may have been processed.
 */
import { describe, expect, it } from 'vitest';
import { registerSecret, runCli, show, tempDir } from '../helpers/cli.js';
import { HOSTILE_KINDS, hostileExpectation, startHostileServer, type Hostility } from '../helpers/hostile-server.js';
import { TRIGGERS_BODY } from '../helpers/server.js';

const KEY = 'sk_test_hostile_0f1e2d3c4b5a';
registerSecret(KEY);
const TRIGGER_ID = TRIGGERS_BODY.triggers[0]!.id;
const UUID = '9b2d7c1e-4f3a-4e5b-8c6d-7e8f9a0b1c2d';

interface Cmd {
  name: string;
  args: string[];
  target: string;
  /** Booking and firing change something: never repeated, an unreadable answer is exit 7. */
  once: boolean;
}

const COMMANDS: Cmd[] = [
  { name: 'triggers ls', args: ['triggers', 'ls'], target: 'GET /v1/triggers', once: false },
  {
    name: 'events show',
    args: ['events', 'show', 'intro-call'],
    target: 'GET /v1/scheduling/events/intro-call',
    once: false,
  },
  {
    name: 'slots',
    args: ['slots', 'intro-call', '--days', '1'],
    target: 'POST /v1/scheduling/events/intro-call/slots',
    once: false,
  },
  {
    name: 'book',
    args: [
      'book',
      'intro-call',
      '--start',
      '2030-01-07T10:00:00Z',
      '--reservation',
      UUID,
      '--email',
      'lead@acme.example',
    ],
    target: 'POST /v1/scheduling/meetings',
    once: true,
  },
  {
    name: 'trigger fire',
    args: ['trigger', 'fire', TRIGGER_ID, '--email', 'lead@acme.example'],
    target: `POST /v1/triggers/${TRIGGER_ID}`,
    once: true,
  },
];

/** Timeouts short enough to keep the suite quick; the drip needs headers to arrive first. */
const timeoutFor = (kind: Hostility) => (kind === 'never-answers' ? '1' : '2');

/**
 * Each misbehaviour through the built CLI twice: for a read command and for a once-only one, the
 * commands taken in turn, so each command meets several misbehaviours (its wiring: which kind of
 * request it sends). Every misbehaviour for both kinds of request is in test/unit/hostile-answers.test.ts.
 */
const READS = COMMANDS.filter((cmd) => !cmd.once);
const ONCE = COMMANDS.filter((cmd) => cmd.once);
const matrix = HOSTILE_KINDS.flatMap((kind, i) =>
  [READS[i % READS.length]!, ONCE[i % ONCE.length]!].map((cmd) => ({ cmd, kind, label: `${cmd.name}: ${kind}` })),
);

describe.concurrent('hostile servers: a clear error, the right exit code, bounded time, the key kept home', () => {
  it.each(matrix)(
    '$label',
    async ({ cmd, kind }) => {
      const s = await startHostileServer(kind, cmd.target);
      try {
        const started = Date.now();
        const r = await runCli([...cmd.args, '--json', '--base-url', s.baseUrl, '--timeout', timeoutFor(kind)], {
          configDir: tempDir(),
          env: { SCHEDCTL_API_KEY: KEY },
          timeoutMs: 30_000,
        });
        const elapsed = Date.now() - started;
        const want = hostileExpectation(kind, cmd.once);
        expect(r.code, show(r)).toBe(want.exit);
        const doc = r.json<{ error: { code: string; message: string } }>();
        expect(doc.error.code, show(r)).toBe(want.code);
        expect(doc.error.message, show(r)).toMatch(want.message);
        expect(r.stderr, show(r)).not.toMatch(/\n\s+at /);
        // Bounded: retries of reads included, far from a hang (loose: the machine is shared).
        expect(elapsed, show(r)).toBeLessThan(15_000);

        const hits = s.targetHits();
        expect(hits.length, show(r)).toBeGreaterThanOrEqual(1);
        // A booking or a fire is never repeated once it may have reached the server (a 429 is the exception: it did not act).
        if (cmd.once && !kind.startsWith('retry-after')) expect(hits.length, show(r)).toBe(1);
        if (kind === 'retry-after-huge') expect(hits.length, show(r)).toBe(1);
        // The key goes to the configured origin only.
        for (const seen of s.seen) expect(seen.headers.authorization).toBe(`Bearer ${KEY}`);
        expect(s.otherSeen, 'a redirect must not be followed to another origin').toEqual([]);
      } finally {
        await s.close();
      }
    },
    40_000,
  );
});
