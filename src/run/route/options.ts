/**
 * `schedctl route` flags, checked before any request. Without a terminal the values that
 * no prompt can supply are required here, so a script fails at once (exit 2) naming the flag;
 * required form fields are only known after listing the triggers (still before firing).
 */
import { UsageError } from '../../errors.js';
import { parseKeyValues, requireEmail, requirePlainText } from '../../domain/inputs.js';
import { parseTimeExpression, readTime } from '../../domain/human-time.js';
import { requireFuture, resolveZone } from '../../domain/time.js';
import { DEFAULT_DAYS, MAX_GUESTS, MAX_SLOTS_RANGE_DAYS } from '../../limits.js';
import { missingFlag, type RouteFlags } from './flag-asker.js';

export interface RouteOptionsInput {
  trigger?: string | undefined;
  email?: string | undefined;
  field?: string[] | undefined;
  slot?: string | undefined;
  firstName?: string | undefined;
  lastName?: string | undefined;
  phone?: string | undefined;
  guest?: string[] | undefined;
  yes?: boolean | undefined;
  refire?: boolean | undefined;
  rebook?: boolean | undefined;
  tz?: string | undefined;
  leadTz?: string | undefined;
  days?: string | undefined;
}

export interface ParsedRouteOptions {
  flags: RouteFlags;
  zone: string;
  leadZone: string | undefined;
  days: number;
}

export async function parseRouteOptions(
  o: RouteOptionsInput,
  now: Date,
  canPrompt: boolean,
): Promise<ParsedRouteOptions> {
  const zone = resolveZone(o.tz, '--tz');
  const leadZone = o.leadTz !== undefined ? resolveZone(o.leadTz, '--lead-tz') : undefined;
  const days = o.days === undefined ? DEFAULT_DAYS : Number(o.days);
  if (!/^\d+$/.test(o.days ?? String(DEFAULT_DAYS)) || days < 1 || days > MAX_SLOTS_RANGE_DAYS) {
    throw new UsageError(
      `invalid --days "${o.days}": expected a whole number of days from 1 to ${MAX_SLOTS_RANGE_DAYS} (one slots request per page)`,
    );
  }
  const trigger = o.trigger?.trim() || undefined;
  if (o.trigger !== undefined && !trigger) throw new UsageError('invalid --trigger "": pass a trigger id or name');
  const email = o.email !== undefined ? requireEmail(o.email, '--email') : undefined;
  // Checked against the trigger's form (domain/triggers.ts checkResponses), before the fire:
  // a field's name and a select's options are the server's words, which may hold anything.
  const fields = parseKeyValues(o.field ?? [], '--field');
  let slot: RouteFlags['slot'];
  if (o.slot !== undefined) {
    if (o.slot.trim().toLowerCase() === 'first') slot = 'first';
    else {
      const timeOpts = { zone, now, name: '--slot', zoneInput: '--tz', picks: true };
      const reading = await readTime(o.slot, timeOpts);
      if (reading.kind === 'instant') slot = requireFuture(reading.at, now, '--slot', zone);
      else {
        // Without a terminal, a range needs "first …": the one-time refusal says so.
        if (!reading.first && !canPrompt) await parseTimeExpression(o.slot, timeOpts);
        if (reading.to <= now) requireFuture(reading.to, now, '--slot', zone);
        slot = { input: o.slot, from: reading.from, to: reading.to, first: reading.first };
      }
    }
  }
  const guests = (o.guest ?? []).map((g) => requireEmail(g, '--guest'));
  if (guests.length > MAX_GUESTS)
    throw new UsageError(`too many --guest values (${guests.length}): at most ${MAX_GUESTS} guests`);

  if (!canPrompt) {
    if (!trigger) throw missingFlag('--trigger', 'pass the trigger id or name (see `schedctl triggers ls`)');
    if (!email) throw missingFlag('--email', "pass the lead's email");
    // --slot is not required up front: a trigger whose outcome is a redirect or none books
    // nothing. A scheduler outcome without it fails after the fire, its run kept for the retry.
  }
  return {
    flags: {
      trigger,
      email,
      fields,
      slot,
      firstName: requirePlainText(o.firstName, '--first-name'),
      lastName: requirePlainText(o.lastName, '--last-name'),
      phone: requirePlainText(o.phone, '--phone'),
      guests,
      yes: Boolean(o.yes),
      refire: Boolean(o.refire),
    },
    zone,
    leadZone,
    days,
  };
}
