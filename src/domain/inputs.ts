/** Checks of user input shared by the booking commands: each failure names its flag, before any request. */
import * as z from 'zod';
import { UsageError } from '../errors.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const emailSchema = z.email();

export function requireUuid(value: string, flag: string, what: string): string {
  if (!UUID.test(value.trim())) {
    throw new UsageError(`invalid ${flag} "${value}": expected a ${what} id (a uuid such as 3f2a9c1e-8b4d-4e6f-9a1b-2c3d4e5f6a7b)`);
  }
  return value.trim();
}

export function requireEmail(value: string, flag: string): string {
  if (!emailSchema.safeParse(value.trim()).success) {
    throw new UsageError(`invalid ${flag} "${value}": expected an email address such as lead@company.com`);
  }
  return value.trim();
}

/** `key=value` pairs of a repeatable flag into an object; a pair without `=` is an error naming the flag. */
export function parsePairs(pairs: string[] | undefined, flag: string): Record<string, string> | undefined {
  if (!pairs?.length) return undefined;
  const out: Record<string, string> = {};
  for (const pair of pairs) {
    const i = pair.indexOf('=');
    if (i <= 0) throw new UsageError(`invalid ${flag} "${pair}": expected key=value`);
    out[pair.slice(0, i)] = pair.slice(i + 1);
  }
  return out;
}
