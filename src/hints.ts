/**
 * What to do next after each API error code, in one place. A hint depends on the operation
 * that was refused and on what is known about it (the event, the reservation, the workflow
 * run...), so each rule takes that context. The wording names schedctl's commands and
 * flags: this is the CLI's voice, kept out of the domain, which only passes the context.
 */
import { closest } from './domain/closest.js';
import { shellWord } from './run/route/command-line.js';

export type Operation = 'book' | 'fire' | 'slots' | 'reschedule';

export interface HintContext {
  operation: Operation;
  event?: string | undefined;
  reservationId?: string | undefined;
  personEmail?: string | undefined;
  workflowExecutionId?: string | null | undefined;
  /** The exact command that fired this workflow run, when remembered. */
  fireAgain?: string | undefined;
  trigger?: { id: string; name: string } | undefined;
  meetingId?: string | undefined;
  details?: string[] | undefined;
}

const KEY_REFUSED =
  'the key is missing, malformed or revoked: add a current one with `schedctl profile add <name> --key-stdin`';
const FIX_INPUTS = 'fix the inputs named in the details and run the command again';

const SCOPE_NEEDED: Record<Operation, string> = {
  book: 'booking needs a key with the scheduling:write permission',
  fire: 'firing needs a key with triggers:write; use another profile (--profile) or a key with that permission',
  slots: 'listing slots needs a key with scheduling:read',
  reschedule: 'rescheduling needs a key with the scheduling:write permission',
};

type Rule = (c: HintContext) => string | undefined;

const slotsOf = (c: HintContext) => `schedctl slots ${c.event ?? '<event>'}`;
const freshSlots = (c: HintContext) => `fetch slots again without --reservation: ${slotsOf(c)}`;

const RULES: Record<string, Rule> = {
  INVALID_API_KEY: () => KEY_REFUSED,
  MISSING_SCOPE: (c) => SCOPE_NEEDED[c.operation],
  INVALID_REQUEST: (c) => {
    if (c.operation === 'fire' && c.trigger)
      return `check the values against \`schedctl triggers show ${c.trigger.id}\` (nothing was fired)`;
    if (c.operation === 'book' && c.details?.some((d) => d.startsWith('personEmail'))) {
      const run = c.workflowExecutionId ? ` (workflow run ${c.workflowExecutionId})` : '';
      return `with --execution, --email must be the email the trigger was fired with${run}`;
    }
    return FIX_INPUTS;
  },
  WORK_EMAIL_REQUIRED: (c) =>
    c.operation === 'fire'
      ? `"${c.trigger?.name ?? 'this trigger'}" requires a work email: pass the lead's company address with --email (nothing was fired)`
      : `${c.event ?? 'this event'} requires a work email: pass the lead's company address in --email, not a personal one such as gmail.com`,
  NOT_FOUND: (c) => {
    switch (c.operation) {
      case 'reschedule':
        return `no meeting ${c.meetingId ?? ''} in this workspace: check the id (\`schedctl meetings ls\` lists the ones booked here)`;
      case 'slots':
        return c.reservationId
          ? `check "${c.event}" (schedctl events ls) and the --reservation id`
          : `no event or scheduling link "${c.event}": list them with schedctl events ls`;
      case 'fire':
        return 'no such trigger in this workspace: list them with `schedctl triggers ls`';
      default: {
        // A booking's 404 does not say which of its ids the API did not find: each one given is named.
        const unknown = [
          `the event or link "${c.event}" (\`schedctl events ls\`)`,
          ...(c.reservationId
            ? [`the --reservation id ${c.reservationId} (a reservation comes from \`${slotsOf(c)}\`: fetch a new one)`]
            : []),
          ...(c.workflowExecutionId
            ? [`the --execution id ${c.workflowExecutionId} (from \`schedctl trigger fire\`)`]
            : []),
        ];
        return unknown.length === 1
          ? `check ${unknown[0]}`
          : `one of ${unknown.length} ids is unknown to the API: check ${unknown.slice(0, -1).join(', ')} and ${unknown.at(-1)}`;
      }
    }
  },
  RESERVATION_EXPIRED: (c) =>
    c.operation === 'slots'
      ? `the reservation's hold lapsed; ${freshSlots(c)}`
      : `the hold lapsed: fetch slots again without a reservation (\`${slotsOf(c)}\`) and book with the new --reservation`,
  RESERVATION_USED: (c) =>
    c.operation === 'slots'
      ? `the reservation was already used by a booking; ${freshSlots(c)}`
      : `this reservation was already spent, usually by an earlier booking whose response was lost: check the calendar before booking again; for another meeting fetch new slots with \`${slotsOf(c)}\``,
  RESERVATION_MISMATCH: (c) =>
    c.operation === 'slots'
      ? `reservation ${c.reservationId ?? ''} belongs to another event or link; pass that one, or ${freshSlots(c)}`
      : `the reservation belongs to another event or link: pass the same <event-or-link> you fetched slots for, or fetch slots for this one with \`${slotsOf(c)}\``,
  NO_HOST_AVAILABLE: (c) =>
    `no host is free at that time: pick another slot from \`${slotsOf(c)} --reservation ${c.reservationId ?? '<id>'}\``,
  SLOT_TAKEN: (c) =>
    `the reservation is still usable: fetch slots with \`${slotsOf(c)} --reservation ${c.reservationId ?? '<id>'}\` and book another with the same --reservation`,
  CONFLICT: (c) => {
    if (c.operation === 'reschedule')
      return `this meeting's host cannot take that time: name a day instead (--start "first <day>") and schedctl tries the event's free times until the host accepts one; \`${slotsOf(c)}\` lists the event's free times (all its hosts'), which this meeting's host may not all take`;
    const fire = c.fireAgain ?? `schedctl trigger fire <trigger> --email ${c.personEmail ?? '<lead>'}`;
    return c.workflowExecutionId
      ? `the scheduling session of workflow run ${c.workflowExecutionId} ended: fire the trigger again (\`${fire}\`), then fetch slots for the new schedulingLinkId and book with the new --execution`
      : `the scheduling session ended: fire the trigger again (\`${fire}\`) and restart from the slots step`;
  },
};

/** The hint for an API error code in this context; undefined when there is nothing useful to add. */
export function hintFor(code: string, context: HintContext): string | undefined {
  return RULES[code]?.(context);
}

/**
 * SLOT_TAKEN on `book`, after looking up the nearest free times (fetched: the lookup worked).
 * The times themselves are in the hint (one line, wherever it is read: a terminal, --json's
 * `error.hint` beside `nearestSlots`, an MCP result): the nearest as a command to run.
 */
export function slotTakenHint(c: HintContext, found: { fetched: boolean; nearest: readonly string[] }): string {
  const slots = `${slotsOf(c)} --reservation ${c.reservationId ?? '<id>'}`;
  if (!found.fetched) return hintFor('SLOT_TAKEN', c) ?? '';
  const [first, ...others] = found.nearest;
  if (first === undefined) return `no free times within a week of it; fetch slots with: ${slots}`;
  const again = `schedctl book ${c.event} --start ${first} --reservation ${c.reservationId} --email ${c.personEmail}`;
  const rest = others.length ? `, or --start one of the other nearest free times: ${others.join(', ')}` : '';
  return `the reservation is still usable: book the nearest free time with ${again}${rest}`;
}

/** `route` after CONFLICT without a terminal or --yes: how to fire again. */
export function refireHint(executionId: string): string {
  return `the scheduling session of workflow run ${executionId} ended: run the same command with --yes to fire the trigger again automatically (a re-fire repeats the workflow's CRM writes and counts for routing fairness), or run \`schedctl route\` on a terminal to decide`;
}

/** The key a command used, as the refusal names it. */
export interface KeyInUse {
  profileName: string | undefined;
  keySource: 'SCHEDCTL_API_KEY' | 'profile';
  baseUrl: string;
}

/** INVALID_API_KEY / HTTP 401: the headline names the key's profile (the server's words go to the details). */
export function keyRefused(k: KeyInUse): { message: string; hint: string } {
  if (k.keySource === 'profile' && k.profileName) {
    const name = k.profileName;
    return {
      message: `the API at ${k.baseUrl} refused the key of profile "${name}" (missing, mistyped or revoked)`,
      hint: `check it with \`schedctl profile show ${name}\`; replace it with \`schedctl profile add ${name} --key-stdin\` (the same name overwrites it)`,
    };
  }
  return {
    message: `the API at ${k.baseUrl} refused the key in SCHEDCTL_API_KEY (missing, mistyped or revoked)`,
    hint: 'check SCHEDCTL_API_KEY (it wins over profiles), or unset it and use a profile: `schedctl profile add <name> --key-stdin`, then `schedctl profile show`',
  };
}

/** `events show <unknown>`: the known slugs (like an unknown trigger lists its names), the nearest first. */
export function knownEventsHint(asked: string, slugs: string[] | undefined): string {
  if (!slugs) return `no event or scheduling link "${asked}": list them with \`schedctl events ls\``;
  if (slugs.length === 0) return 'this workspace has no events';
  const near = closest(asked, slugs);
  const listed = slugs.slice(0, 20).join(', ') + (slugs.length > 20 ? `, … (${slugs.length} in all)` : '');
  return `${near ? `did you mean "${near}"? ` : ''}known events: ${listed} (see \`schedctl events ls\`)`;
}

/** The commands a hint may name, which the command line's --profile and --base-url go with. */
const RUNS_AGAINST_API =
  /\bschedctl (?=(?:route|triggers|trigger|events|slots|book|reschedule|meetings|state|api|smoke|mcp)\b)/g;

/**
 * A hint's commands as the user would run them next: with the --profile and --base-url of the
 * command line that failed (an environment variable carries over by itself), so that the command
 * a message suggests runs against the same API as written.
 */
export function withCommandLine(
  hint: string,
  globals: { profile?: string | undefined; baseUrl?: string | undefined },
): string {
  const words = [
    ...(globals.profile ? ['--profile', shellWord(globals.profile)] : []),
    ...(globals.baseUrl ? ['--base-url', shellWord(globals.baseUrl)] : []),
  ];
  if (words.length === 0) return hint;
  return hint.replace(RUNS_AGAINST_API, `schedctl ${words.join(' ')} `);
}
