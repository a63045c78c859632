/**
 * One claim per lead per ledger, wherever it is reached from (issue 44, 4): two config
 * directories whose ledger.db is one file (a symlink) take turns on one lead, since the lead's
 * lock is beside the ledger's real file, not under each config directory.
 */
import { symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { demoRouteFirstArgs } from '../helpers/args.js';
import { tempDir } from '../helpers/cli.js';
import { barrier, startGate } from '../helpers/parallel-gate.js';
import { describeRun, jsonOf, runKillable } from '../helpers/parallel-run.js';
import { useSandbox } from '../helpers/sandbox.js';

const t = useSandbox();
const N = 8;

describe('two config directories on one ledger file', () => {
  it(`${N} concurrent routes of one lead, alternating between them, book one meeting`, async () => {
    const a = t.dir;
    const b = tempDir();
    // A write makes the ledger file (a route of another lead), then b reaches it through a symlink.
    const other = await t.sb.cli([...demoRouteFirstArgs('someone-else@acme.example'), '--json'], { configDir: a });
    expect(other.code, other.stderr).toBe(0);
    symlinkSync(join(a, 'ledger.db'), join(b, 'ledger.db'));

    const gate = await startGate(t.sb.baseUrl);
    try {
      // Three rounds, a lead each: the race is real only when the routes overlap.
      for (const round of [1, 2, 3]) {
        // Every route lists the triggers first: held until all have asked, so they race from there.
        gate.before = barrier(N, (r) => r.method === 'GET' && r.path === '/v1/triggers');
        const email = `two-dirs-${round}@acme.example`;
        const runs = await Promise.all(
          Array.from({ length: N }, (_, i) =>
            runKillable([...demoRouteFirstArgs(email), '--json'], {
              configDir: i % 2 ? b : a,
              env: { SCHEDCTL_BASE_URL: gate.baseUrl, SCHEDCTL_API_KEY: t.sb.keys.full },
              timeoutMs: 60_000,
            }),
          ),
        );
        for (const r of runs) expect(r.code, describeRun(r)).toBe(0);
        const statuses = runs.map((r) => (jsonOf(r) as { status: string }).status);
        expect(
          statuses.filter((s) => s === 'booked'),
          statuses.join(),
        ).toHaveLength(1);
        const meetings = (await t.sb.state()).meetings.filter((m) => m.personEmail === email);
        expect(meetings).toHaveLength(1);
      }
    } finally {
      await gate.close();
    }
  });
});
