/**
 * Times for people: an ISO 8601 instant in a human message (an error, its details, its hint)
 * is shown in the user's zone and the tables' format (`2026-12-02 21:00 CET`). One that follows
 * a flag (`--start 2026-12-02T20:00:00.000Z`) is a command to paste and stays as it is; so does
 * everything in `--json` (the caller applies this to human lines only). An instant written with
 * a numeric offset is kept as written too: its offset is the point (the two readings of a time
 * that clocks going back repeat differ by nothing else, and the hint asks for one of them). So is
 * one given as an MCP tool's argument to pass back (`(start: 2026-12-02T20:00:00.000Z)`), and
 * the example of a form a hint names (`ISO 8601 with an offset (2026-12-01T14:00Z, …`): shown in
 * the zone it would read as a form that is refused when typed.
 */
import { formatInZone, resolveZone, systemZone } from '../domain/time.js';

const INSTANT =
  /(?<!--[a-z][a-z-]*[ =]["']?)(?<!\bstart[:=] ?)(?<!with an offset \()\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?Z(?![\w:.+-])/gi;

export function humanTimes(text: string, zone: string): string {
  return text.replace(INSTANT, (iso) => {
    const at = new Date(iso);
    return Number.isNaN(at.getTime()) ? iso : formatInZone(at, zone);
  });
}

/** The zone a command's human output uses: its --tz when valid, else the system's. */
export function displayZoneOf(argv: readonly string[]): string {
  const i = argv.indexOf('--tz');
  const raw = i >= 0 ? argv[i + 1] : argv.find((a) => a.startsWith('--tz='))?.slice('--tz='.length);
  try {
    return resolveZone(raw, '--tz');
  } catch {
    return systemZone();
  }
}
