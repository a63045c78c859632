/** Command lines that many tests run, spelled once: a renamed flag is one edit here. */

/** The seeded trigger that most tests fire: a form of company, region, team size and notes. */
export const DEMO_TRIGGER = 'Inbound demo request';

/** The lead's answers to the demo trigger's required fields: a lead of Acme in a region (emea: the Sales EMEA link). */
export function demoLeadFlags(email = 'ada@acme.example', region = 'emea'): string[] {
  return ['--email', email, '--field', 'company=Acme', '--field', `region=${region}`];
}

/** `route`'s flags (without the command) for the demo trigger; for the wizard helpers that put `route` in front. */
export function demoRouteFlags(email = 'ada@acme.example', region = 'emea'): string[] {
  return ['--trigger', DEMO_TRIGGER, ...demoLeadFlags(email, region)];
}

/** `route` for the seeded "Inbound demo request" trigger: a lead of Acme in a region (emea: the Sales EMEA link). */
export function demoRouteArgs(email = 'ada@acme.example', region = 'emea'): string[] {
  return ['route', ...demoRouteFlags(email, region)];
}

/** `route` for the demo trigger that books the first free time without asking (`--slot first --yes`). */
export function demoRouteFirstArgs(email = 'ada@acme.example', region = 'emea'): string[] {
  return [...demoRouteArgs(email, region), '--slot', 'first', '--yes'];
}

/** `trigger fire` of the demo trigger for the same lead as `demoRouteArgs`. */
export function demoFireArgs(email = 'ada@acme.example', region = 'emea'): string[] {
  return ['trigger', 'fire', DEMO_TRIGGER, ...demoLeadFlags(email, region)];
}

/** `book` of one slot that `schedctl slots` returned. */
export function bookSlotArgs(event: string, slot: string, reservationId: string, email: string): string[] {
  return ['book', event, '--start', slot, '--reservation', reservationId, '--email', email];
}
