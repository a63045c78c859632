/**
 * One booking of a lead at a time, across processes. `book` and a `route` whose lead is known
 * up front check the local record (the lead guard, the journal of lost answers) and then book;
 * two schedctl runs for the same lead at once could both find nothing and both book. So that
 * check-then-book runs under a lock per workspace and lead (`leads/<id>.lock`, id = the first
 * 32 hex digits of sha256(scope + "\n" + email): no email in a file name); the second run waits,
 * then finds the first one's meeting on record.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { ensureDir } from './disk.js';
import { LeadBusyError } from './errors.js';
import { withHeldLock, type LockTiming } from './lock.js';
import { normEmail } from './records.js';

/** How long a run waits for another one booking the same lead: a few requests, or a wizard's prompts. */
export const LEAD_WAIT_MS = 120_000;

export function leadLockFile(dir: string, scope: string, email: string): string {
  const id = createHash('sha256')
    .update(`${scope}\n${normEmail(email)}`)
    .digest('hex')
    .slice(0, 32);
  return join(dir, 'leads', id);
}

export async function holdLead<T>(
  dir: string,
  timing: LockTiming,
  lead: { scope: string; email: string },
  work: () => Promise<T>,
): Promise<T> {
  const file = leadLockFile(dir, lead.scope, lead.email);
  ensureDir(join(dir, 'leads'));
  return withHeldLock(file, timing, () => new LeadBusyError(lead.email, file, timing.waitMs), work);
}
