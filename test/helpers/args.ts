/** Command lines that many tests run, spelled once: a renamed flag is one edit here. */

/** `route` for the seeded "Inbound demo request" trigger: a lead of Acme in a region (emea: the Sales EMEA link). */
export function demoRouteArgs(email = 'ada@acme.example', region = 'emea'): string[] {
  return [
    'route',
    '--trigger',
    'Inbound demo request',
    '--email',
    email,
    '--field',
    'company=Acme',
    '--field',
    `region=${region}`,
  ];
}

/** `book` of one slot that `schedctl slots` returned. */
export function bookSlotArgs(event: string, slot: string, reservationId: string, email: string): string[] {
  return ['book', event, '--start', slot, '--reservation', reservationId, '--email', email];
}
