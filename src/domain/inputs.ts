/**
 * Checks of user input shared by the commands, before any request: each failure names the
 * input as the caller names it (`name`: the CLI passes its flag).
 */
import { controlCharacterIn, CONTROL_REFUSAL, shownEscaped } from '../api/request-text.js';
import * as z from '../api/zod.js';
import { UsageError } from '../errors.js';
import { setOwn } from './own-keys.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const emailSchema = z.email();

export function requireUuid(value: string, name: string, what: string): string {
  if (!UUID.test(value.trim())) {
    throw new UsageError(
      `invalid ${name} "${value}": expected a ${what} id (a uuid such as 3f2a9c1e-8b4d-4e6f-9a1b-2c3d4e5f6a7b)`,
    );
  }
  return value.trim();
}

export const isValidEmail = (value: string): boolean => emailSchema.safeParse(value).success;

export function requireEmail(value: string, name: string): string {
  if (!isValidEmail(value.trim())) {
    throw new UsageError(`invalid ${name} "${value}": expected an email address such as lead@company.com`);
  }
  return value.trim();
}

/** Repeatable `key=value` inputs into an object; the value may contain `=`. */
export function parseKeyValues(pairs: string[], name: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at <= 0) {
      throw new UsageError(`invalid ${name} "${pair}": expected key=value`, { hint: `e.g. ${name} company=Acme` });
    }
    setOwn(out, pair.slice(0, at), pair.slice(at + 1));
  }
  return out;
}

/**
 * Free text that goes to the API (a name, a phone, an answer): refused when it holds a control
 * character, a line break or a bidi override (api/request-text.ts), naming the input and the
 * character escaped. Returns the value unchanged.
 */
export function requirePlainText<T extends string | undefined>(value: T, name: string): T {
  const char = value === undefined ? undefined : controlCharacterIn(value);
  if (char !== undefined)
    throw new UsageError(
      `invalid ${name} "${shownEscaped(value!)}": it holds the control character ${char}; ${CONTROL_REFUSAL}, and nothing was sent`,
      { hint: `retype ${name} on one line, without control characters` },
    );
  return value;
}

/** requirePlainText for each key and value of `key=value` answers (`--response company=…`). */
export function requirePlainAnswers<T extends Record<string, string> | undefined>(answers: T, name: string): T {
  for (const [key, value] of Object.entries<string>(answers ?? {})) {
    requirePlainText(key, `${name} key`);
    requirePlainText(value, `${name} ${shownEscaped(key)}`);
  }
  return answers;
}
