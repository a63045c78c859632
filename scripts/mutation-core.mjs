#!/usr/bin/env node
/**
 * The booking core's own mutation threshold. Stryker has one `break` threshold (75%, for all
 * of src/domain and src/state); the files that decide "never a second booking" and "lose
 * nothing" are held to 90%, each of them: a weak file must not hide behind a strong one.
 * Reads Stryker's JSON report (reports/mutation/mutation.json, written by `stryker run`).
 *
 *   node scripts/mutation-core.mjs [report.json]
 */
import { readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';

const CORE = [
  'src/domain/booking.ts',
  'src/state/journal.ts',
  'src/state/outcomes.ts',
  'src/state/meetings.ts',
  'src/state/json-file.ts',
  'src/state/lock.ts',
  'src/state/profiles.ts',
  'src/state/config-file.ts',
  // The lead ledger: what counts as the same workspace, lead and event, the rule, and the lead's record.
  'src/state/identity.ts',
  'src/domain/lead-rule.ts',
  'src/state/ledger.ts',
  // The ledger's storage: the SQLite engine and its migrations, the stores' SQL, the documents' move.
  'src/state/sqlite/engine.ts',
  'src/state/sqlite/migrate.ts',
  'src/state/sql/documents.ts',
  'src/state/fires.ts',
  'src/state/events.ts',
  'src/state/together.ts',
  // What the store says when it refuses, how it writes a file, and which lock a booking takes.
  'src/state/errors.ts',
  'src/state/disk.ts',
  'src/state/backend.ts',
  'src/state/local/backend.ts',
  // Whose clock says "upcoming"; which key, URL and name a command uses; which workspace a key is in.
  'src/domain/server-clock.ts',
  'src/config/target.ts',
  'src/config/paths.ts',
  'src/domain/workspace-join.ts',
  'src/state/workspaces.ts',
  'src/state/legacy-records.ts',
  // A ledger that was there stays there; versions cannot pass each other; how a URL is shown.
  'src/state/sqlite/ledger-mark.ts',
  'src/state/sqlite/documents-beside.ts',
  'src/state/sqlite/ledger-reset.ts',
  'src/config/mask.ts',
];
const MIN_SCORE = 90;
/**
 * A file below MIN_SCORE may be held for one round at the score it was measured at (so it cannot
 * fall further), named here as an open gap until tests bring it back to MIN_SCORE: none is now.
 * (Issue 44's four files held here on e801ee6 reached 90% or more with their unit tests; so did
 * outcomes.ts, fires.ts and sqlite/engine.ts, held on 8bc318a, with the unit tests of the lead's
 * reads and of the write serial: test/unit/state-ledger-lead-reads.test.ts, state-sqlite-serial.test.ts.)
 */
const HELD_BELOW = {};

const reportPath = resolve(process.argv[2] ?? 'reports/mutation/mutation.json');
let report;
try {
  report = JSON.parse(readFileSync(reportPath, 'utf8'));
} catch (error) {
  console.error(`mutation-core: cannot read ${reportPath} (${error.message}): run \`npx stryker run\` first`);
  process.exit(2);
}

// Stryker's score: detected / (detected + undetected); compile and runtime errors and ignored mutants do not count.
const DETECTED = new Set(['Killed', 'Timeout']);
const UNDETECTED = new Set(['Survived', 'NoCoverage']);
const byFile = new Map(
  Object.entries(report.files ?? {}).map(([name, file]) => [relative(process.cwd(), resolve(name)), file]),
);

let failed = false;
const total = { detected: 0, undetected: 0 };
const rows = [];
for (const name of CORE) {
  const file = byFile.get(name);
  if (!file) {
    rows.push(`  ${name.padEnd(30)}  missing from the report (not mutated?)`);
    failed = true;
    continue;
  }
  const detected = file.mutants.filter((m) => DETECTED.has(m.status)).length;
  const undetected = file.mutants.filter((m) => UNDETECTED.has(m.status));
  total.detected += detected;
  total.undetected += undetected.length;
  const valid = detected + undetected.length;
  const score = valid === 0 ? 100 : (100 * detected) / valid;
  const floor = HELD_BELOW[name] ?? MIN_SCORE;
  const low = score < floor;
  failed ||= low;
  rows.push(
    `  ${name.padEnd(30)} ${score.toFixed(2).padStart(6)}%  (${detected}/${valid})${low ? `  below ${floor}%` : floor < MIN_SCORE ? `  (held at ${floor}%: below ${MIN_SCORE}%, an open gap)` : ''}`,
  );
  if (low) {
    for (const m of undetected) {
      const at = m.location?.start;
      rows.push(
        `      ${m.status.padEnd(10)} ${name}:${at?.line}:${at?.column} ${m.mutatorName}${m.replacement ? ` -> ${JSON.stringify(m.replacement).slice(0, 80)}` : ''}`,
      );
    }
  }
}
const all = total.detected + total.undetected;
const overall = all === 0 ? 100 : (100 * total.detected) / all;
console.log(`Mutation score of the booking core (each file at least ${MIN_SCORE}%):`);
console.log(rows.join('\n'));
console.log(`  ${'core overall'.padEnd(30)} ${overall.toFixed(2).padStart(6)}%  (${total.detected}/${all})`);
if (failed) {
  console.error(
    `mutation-core: the booking core is below ${MIN_SCORE}%: add tests that kill the mutants listed above (or mark an equivalent one with a reason)`,
  );
  process.exit(1);
}
