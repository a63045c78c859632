/**
 * Issue 52: every booking and move of a lead goes through the lead session. The session's modules
 * are the only ones that write a lead's record (its attempts, meetings, moves, fires and remembered
 * outcomes), hold a lead or a meeting, send a booking or a move, or read the lead's record for a
 * decision; a new command gets the promise by calling them, never by re-implementing a piece of it.
 * This test reads src/ as text and fails naming any other file that does one of these.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = join(import.meta.dirname, '../../src');

/** The lead session, and why each file belongs to it. */
const SESSION: Record<string, string> = {
  'domain/lead-rule.ts': 'the decision table itself',
  'state/ledger.ts': "the lead's record, read once per decision",
  'run/lead-guard.ts': 'asks the table before a booking: refuses, asks, or goes on',
  'domain/booking.ts': 'a booking marked sent before it leaves, settled by its answer',
  'domain/route/resolve.ts': "a route's earlier lost attempt resolved, the lead rule asked",
  'domain/route/reuse-or-fire.ts': "a route's fire, its outcome remembered for the lead",
  'domain/route/book-loop.ts': "a route's bookings, each under the hold",
  'domain/route/recover.ts': "a route's re-fire after CONFLICT forgets the used-up workflow run",
  'domain/fire.ts': 'a fire marked sent before it leaves',
  'run/route.ts': 'holds the lead for a route by flags, and the wizard from its confirmation',
  'run/book.ts': 'holds the lead for `book`, settles a used-up workflow run',
  'run/trigger/fire.ts': "remembers a fire's outcome for the lead",
  'run/session/move.ts': 'every move: held, marked sent, settled',
  'run/reschedule/adopt.ts': "a lost booking's id, adopted only on the table's evidence",
  'run/reschedule/gone.ts': 'a 404 noted, never freeing the lead',
  'run/smoke.ts': "smoke --book records the meeting it made (the smoke's own lead)",
  'state/local/backend.ts': "the lock's implementation (holdLead of the local backend)",
};

const OWNED: Array<[string, RegExp]> = [
  [
    "writes a lead's record",
    /\b(journal|meetings|outcomes|fires)\.(begin|update|remove|record|recordMove|recordRefusal|markGone|markMoveSent|add|markSent|remember|forgetExecution)\(/,
  ],
  ['holds a lead or a meeting', /\b(holdLead|holdMeeting)\(/],
  ["reads the lead's record for a decision", /\b(leadRecord|guardLead|decide|decideMove)\(/],
  ['sends a booking or a move', /\b(api\.book|api\.reschedule|bookSlot)\(/],
];

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return path.endsWith('.ts') && !path.endsWith('.d.ts') ? [path] : [];
  });
}

/** The code of a file without its comments (a comment may name a method). */
const code = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:])\/\/.*$/gm, '$1');

describe("the lead session is the only way to a lead's record (issue 52)", () => {
  const files = sources(SRC).map((path) => ({ name: relative(SRC, path), text: code(readFileSync(path, 'utf8')) }));

  it.each(OWNED)('only the session %s', (_what, pattern) => {
    const outside = files.filter((f) => pattern.test(f.text) && !(f.name in SESSION)).map((f) => f.name);
    expect(outside, 'go through the lead session (src/run/lead-guard.ts, src/run/session/) instead').toEqual([]);
  });

  it('names only files that exist and still do one of these', () => {
    for (const name of Object.keys(SESSION)) {
      const file = files.find((f) => f.name === name);
      expect(file, name).toBeDefined();
      const owns =
        OWNED.some(([, pattern]) => pattern.test(file!.text)) ||
        /export (async )?function (holdLead|decide)/.test(file!.text);
      expect(owns, `${name} no longer needs to be in the session list`).toBe(true);
    }
  });
});
