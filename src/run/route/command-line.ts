/**
 * The one-line scriptable `schedctl route ...` equivalent of a finished run, for support
 * tickets and scripts: the trigger, email, form values, slot and guest details, never the key.
 */
import type { RouteResult } from '../../domain/route/types.js';

/** POSIX shell word: bare when it holds only safe characters, else single-quoted. */
export function shellWord(text: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(text)) return text;
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

export interface CommandLineExtras {
  profile?: string | undefined;
  leadTz?: string | undefined;
}

export function routeCommandLine(
  r: Pick<RouteResult, 'trigger' | 'email' | 'responses' | 'slot' | 'guests'>,
  extras: CommandLineExtras = {},
): string {
  const words: string[] = ['schedctl', 'route'];
  if (extras.profile) words.push('--profile', extras.profile);
  words.push('--trigger', r.trigger.name, '--email', r.email);
  for (const [key, value] of Object.entries(r.responses ?? {})) words.push('--field', `${key}=${value}`);
  words.push('--slot', r.slot ?? 'first');
  const g = r.guests;
  if (g.firstName) words.push('--first-name', g.firstName);
  if (g.lastName) words.push('--last-name', g.lastName);
  if (g.phone) words.push('--phone', g.phone);
  for (const guest of g.guests) words.push('--guest', guest);
  if (extras.leadTz) words.push('--lead-tz', extras.leadTz);
  words.push('--yes');
  return words.map(shellWord).join(' ');
}
