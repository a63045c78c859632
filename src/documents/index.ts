/**
 * The document kinds of `--json`, each with its schema, its version and the commands that print
 * it: what `npm run schemas` writes to schemas/ (one JSON Schema a kind, `$id`
 * https://schedctl.dev/schemas/v<version>/<kind>.json) and what the tests validate against.
 * A change a script could notice (a field renamed, removed or made nullable) is a new version.
 */
import * as d from './schemas.js';
import type * as z from '../api/zod.js';

export interface DocumentKind {
  version: number;
  title: string;
  schema: () => z.ZodMiniType;
  /** The commands that print it (their names from the top, as `schedctl help formatting` lists them). */
  commands: string[];
}

export const DOCUMENTS = {
  error: { version: 1, title: 'A failure (exit code not 0), any command', schema: d.errorDocument, commands: [] },
  'booking-result': { version: 1, title: 'A booking', schema: d.bookingResult, commands: ['book'] },
  'route-result': {
    version: 1,
    title: 'A routed booking: a booking result with what the route did first',
    schema: d.routeResult,
    commands: ['route'],
  },
  'move-result': { version: 1, title: 'A move of a meeting', schema: d.moveResult, commands: ['reschedule'] },
  'bulk-line': {
    version: 1,
    title: 'A line of a bulk --file run (JSON Lines): a row, the summary, the plan, or the final error',
    schema: d.bulkLine,
    commands: ['route --file', 'reschedule --file'],
  },
  'triggers-list': { version: 1, title: 'The triggers', schema: d.triggersList, commands: ['triggers ls'] },
  trigger: { version: 1, title: 'A trigger', schema: d.trigger, commands: ['triggers show'] },
  'fire-result': { version: 1, title: 'A fired trigger', schema: d.fireResult, commands: ['trigger fire'] },
  'events-list': { version: 1, title: 'A page of events', schema: d.eventsList, commands: ['events ls'] },
  'event-detail': { version: 1, title: 'An event', schema: d.eventDetail, commands: ['events show'] },
  'slots-result': { version: 1, title: 'Free times', schema: d.slotsResult, commands: ['slots'] },
  'meetings-list': { version: 1, title: 'The meetings on record', schema: d.meetingsList, commands: ['meetings ls'] },
  'meeting-record': { version: 1, title: 'A meeting on record', schema: d.meetingShow, commands: ['meetings show'] },
  'meetings-history': {
    version: 1,
    title: "A lead's record in time order",
    schema: d.meetingsHistory,
    commands: ['meetings history'],
  },
  'smoke-result': { version: 1, title: 'A smoke test', schema: d.smokeResult, commands: ['smoke'] },
  'profile-add': { version: 1, title: 'A saved profile', schema: d.profileAdd, commands: ['profile add'] },
  'profile-show': { version: 1, title: 'A profile', schema: d.profileShow, commands: ['profile show'] },
  'profile-list': { version: 1, title: 'The profiles', schema: d.profileList, commands: ['profile ls'] },
  'profile-use': { version: 1, title: 'The default profile', schema: d.profileUse, commands: ['profile use'] },
  'profile-rm': { version: 1, title: 'A removed profile', schema: d.profileRemove, commands: ['profile rm'] },
  'state-status': { version: 1, title: 'The local state', schema: d.stateStatus, commands: ['state status'] },
  'state-push': { version: 1, title: 'A push to the team state', schema: d.statePush, commands: ['state push'] },
  'state-pull': { version: 1, title: 'A pull from the team state', schema: d.statePull, commands: ['state pull'] },
  'state-unlock': { version: 1, title: 'A released lock', schema: d.stateUnlock, commands: ['state unlock'] },
  'state-reset-ledger': {
    version: 1,
    title: 'A new, empty ledger',
    schema: d.stateReset,
    commands: ['state reset-ledger'],
  },
  'state-accept-ledger': {
    version: 1,
    title: "A ledger file accepted as this config directory's",
    schema: d.stateAccept,
    commands: ['state accept-ledger'],
  },
  sandbox: { version: 1, title: 'The sandbox, listening', schema: d.sandboxBanner, commands: ['sandbox'] },
  completion: { version: 1, title: 'A completion script', schema: d.completionScript, commands: ['completion'] },
  'help-topic': { version: 1, title: 'A help topic', schema: d.helpTopic, commands: ['help'] },
  version: { version: 1, title: 'The version', schema: d.versionInfo, commands: ['--version'] },
} satisfies Record<string, DocumentKind>;

export type DocumentKindName = keyof typeof DOCUMENTS;

export const SCHEMA_BASE = 'https://schedctl.dev/schemas';

export function schemaId(kind: DocumentKindName): string {
  return `${SCHEMA_BASE}/v${DOCUMENTS[kind].version}/${kind}.json`;
}

/**
 * The kind a command line's `--json` output is, from its words (global options skipped), or
 * undefined for a command whose document is dynamic (`api`: the server's body as it came).
 * A failure (exit not 0) is an error document, except a bulk run's lines (each its own kind).
 * Kept beside the table it reads, for the tests that validate every `--json` read against it.
 * @internal
 */
export function documentKindOf(args: readonly string[], failed: boolean): DocumentKindName | undefined {
  const words = commandWords(args);
  const bulk = (words[0] === 'route' || words[0] === 'reschedule') && args.some((a) => /^--(file|from)(=|$)/.test(a));
  if (bulk) return 'bulk-line';
  if (failed) return 'error';
  if (args.includes('--version') || args.includes('-v')) return words.length === 0 ? 'version' : undefined;
  for (const [kind, doc] of Object.entries(DOCUMENTS) as [DocumentKindName, DocumentKind][]) {
    for (const c of doc.commands) {
      const want = c.split(' ');
      if (want.every((w, i) => words[i] === w)) return kind;
    }
  }
  return undefined;
}

/** Options that take a value, before or between the command's words. */
const VALUED = new Set(['--profile', '--base-url', '--timeout', '-p']);

function commandWords(args: readonly string[]): string[] {
  const words: string[] = [];
  for (let i = 0; i < args.length && words.length < 2; i++) {
    const a = args[i]!;
    if (a.startsWith('-')) {
      if (VALUED.has(a)) i++;
      continue;
    }
    words.push(a);
  }
  return words;
}
