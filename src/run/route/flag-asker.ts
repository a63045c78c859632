/**
 * Answers from flags. Each question the flags answer is never asked; the rest go to the
 * terminal asker (the wizard) or, without a terminal, fail naming the flag that answers them.
 * Without a terminal the confirmations are implied (every value was given explicitly), except
 * a re-fire after CONFLICT: it repeats the workflow's CRM writes, so it needs --yes.
 */
import type { Trigger, TriggerField } from '../../api/schemas.js';
import { CliError, EXIT, UsageError } from '../../errors.js';
import { nearestSlots } from '../../domain/slots.js';
import { formatUtc } from '../../domain/time.js';
import { resolveTrigger } from '../../domain/triggers.js';
import type { GuestDetails, RouteAsker, SlotAnswer, SlotPage } from '../../domain/route/types.js';

export interface RouteFlags {
  trigger?: string | undefined;
  email?: string | undefined;
  /** From --field key=value (already split). */
  fields: Record<string, string>;
  /** `first`, an instant parsed from --slot, or the part of the day it named ("first tue afternoon"). */
  slot?: 'first' | Date | SlotRange | undefined;
  firstName?: string | undefined;
  lastName?: string | undefined;
  phone?: string | undefined;
  guests?: string[] | undefined;
  yes: boolean;
  refire: boolean;
}

export interface SlotRange {
  input: string;
  from: Date;
  to: Date;
  /** Take its first free time (`first …`); otherwise a terminal offers its times. */
  first: boolean;
}

/**
 * The free times are the routed hosts' and are known only once the trigger fired, so a time that
 * is not free is found after the fire: the run is remembered, and the retry reuses it.
 */
const RUN_KEPT = 'the workflow run is kept: the same command again reuses it (no new fire, no repeated CRM writes);';

export const missingFlag = (flag: string, what: string) =>
  new UsageError(`missing ${flag}: ${what} (no terminal to ask on)`, {
    hint: 'pass it as a flag, or run `schedctl route` on a terminal for the guided wizard',
  });

export function flagAsker(flags: RouteFlags, terminal: RouteAsker | undefined): RouteAsker {
  let autoRefired = false;
  const hasGuestFlags =
    flags.firstName !== undefined ||
    flags.lastName !== undefined ||
    flags.phone !== undefined ||
    (flags.guests?.length ?? 0) > 0;

  return {
    async trigger(triggers) {
      if (flags.trigger !== undefined) return resolveTrigger(triggers, flags.trigger);
      if (terminal) return terminal.trigger(triggers);
      throw missingFlag('--trigger', 'pass the trigger id or name (see `schedctl triggers ls`)');
    },
    async email(trigger) {
      if (flags.email !== undefined) return flags.email;
      if (terminal) return terminal.email(trigger);
      throw missingFlag('--email', "pass the lead's email");
    },
    async form(trigger: Trigger, fields: TriggerField[], email: string) {
      // Without a terminal, buildResponses names every missing required field as --field key=….
      if (!terminal) return flags.fields;
      const open = fields.filter((f) => flags.fields[f.name] === undefined);
      return { ...flags.fields, ...(open.length ? await terminal.form(trigger, open, email) : {}) };
    },
    async reuse(remembered, trigger) {
      if (flags.refire) return false;
      // Scripts reuse by default: no new workflow run, and one request fewer.
      if (!terminal) return true;
      return terminal.reuse(remembered, trigger);
    },
    async confirmFire(summary) {
      if (flags.yes || !terminal) return true;
      return terminal.confirmFire(summary);
    },
    async pickSlot(page: SlotPage): Promise<SlotAnswer> {
      const wanted = flags.slot;
      if (wanted === 'first') {
        const first = page.slots[0];
        if (first) return { kind: 'slot', slot: first, auto: true };
        if (terminal) return terminal.pickSlot(page);
        throw new CliError(
          'NO_SLOTS',
          `no free times for this lead between ${formatUtc(page.from)} and ${formatUtc(page.to)}`,
          EXIT.notFound,
          {
            hint: 'pass a longer --days (at most 63), or --slot with a later time',
          },
        );
      }
      if (wanted !== undefined && !(wanted instanceof Date)) {
        // Page forward (same reservation) until the window reaches the range.
        if (wanted.from.getTime() >= page.to.getTime()) return { kind: 'later' };
        const inRange = page.slots.filter(
          (s) => Date.parse(s) >= wanted.from.getTime() && Date.parse(s) < wanted.to.getTime(),
        );
        if (terminal && !wanted.first) return terminal.pickSlot({ ...page, within: wanted });
        const [first] = inRange;
        if (first) return { kind: 'slot', slot: first, auto: true };
        if (wanted.to.getTime() > page.to.getTime()) return { kind: 'later' };
        if (terminal) return terminal.pickSlot(page);
        throw new CliError(
          'NO_SLOTS',
          `no free times for this lead in --slot "${wanted.input}" (${formatUtc(wanted.from)} to ${formatUtc(wanted.to)})`,
          EXIT.notFound,
          {
            ...(page.slots.length ? { details: nearestSlots(page.slots, wanted.from, 5).map(freeTime) } : {}),
            hint: 'pass another day or part of the day, or --slot first',
          },
        );
      }
      if (wanted instanceof Date) {
        // Page forward (same reservation) until the window holds the wanted time.
        if (wanted.getTime() >= page.to.getTime()) return { kind: 'later' };
        const match = page.slots.find((s) => Date.parse(s) === wanted.getTime());
        if (match) return { kind: 'slot', slot: match };
        if (terminal) return terminal.pickSlot(page);
        const near = nearestSlots(page.slots, wanted, 5);
        const why =
          page.reason === 'slot_taken'
            ? 'was just taken'
            : page.reason === 'no_host'
              ? 'has no host available'
              : 'is not a free time';
        throw new CliError(
          'SLOT_UNAVAILABLE',
          `the --slot time ${wanted.toISOString()} ${why} for this lead`,
          EXIT.conflict,
          {
            ...(near.length ? { details: near.map(freeTime) } : {}),
            hint: `${RUN_KEPT} ${
              near.length
                ? 'pass one of the free times in --slot, or --slot first'
                : 'pass --slot first, or a time within --days'
            }`,
          },
        );
      }
      if (terminal) return terminal.pickSlot(page);
      throw new UsageError(
        'missing --slot: the workflow offered a meeting (scheduler outcome), and there is no terminal to pick a time on',
        {
          hint: `${RUN_KEPT} run the same command with --slot first, or --slot <time>`,
        },
      );
    },
    async guests(): Promise<GuestDetails> {
      if (hasGuestFlags || !terminal) {
        return {
          ...(flags.firstName !== undefined ? { firstName: flags.firstName } : {}),
          ...(flags.lastName !== undefined ? { lastName: flags.lastName } : {}),
          ...(flags.phone !== undefined ? { phone: flags.phone } : {}),
          guests: flags.guests ?? [],
        };
      }
      return terminal.guests();
    },
    async confirmBook(summary) {
      if (flags.yes || !terminal) return true;
      return terminal.confirmBook(summary);
    },
    async retryEmail(trigger, previous, reason) {
      // Scripts keep the refusal (its hint names --email); a terminal asks again.
      return terminal?.retryEmail?.(trigger, previous, reason);
    },
    async refire(executionId, trigger) {
      // --yes re-fires once by itself (the command says so on stderr); a second ended session stops.
      if (flags.yes) {
        if (autoRefired) return false;
        autoRefired = true;
        return true;
      }
      if (!terminal) return false;
      return terminal.refire(executionId, trigger);
    },
  };
}

/** A nearest free time: shown in the user's zone (report.ts), with the --slot value to paste. */
const freeTime = (iso: string) => `free: ${iso}   --slot ${iso}`;
