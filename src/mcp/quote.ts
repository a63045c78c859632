/**
 * Server text is data, never instructions. In the text content of every MCP result, each piece of
 * text that came from the API (trigger names and descriptions, event and host names, meeting
 * titles, field labels, URLs, the API's error messages) is wrapped in «guillemets». Inside a
 * quoted span « and » never appear raw (they are written \u00ab and \u00bb), so the span cannot
 * be closed early; control and bidi characters are shown escaped (the CLI's sanitizer). The
 * server's instructions and the manual (docs/mcp.md) tell clients what the delimiter means.
 */
import { sanitizeText } from '../ui/sanitize.js';

export const OPEN = '«';
export const CLOSE = '»';

/** One piece of server text, quoted as data. */
export function q(text: unknown): string {
  const s = sanitizeText(String(text ?? ''))
    .replaceAll(OPEN, '\\u00ab')
    .replaceAll(CLOSE, '\\u00bb')
    .replace(/\n|\u2028|\u2029/g, (c) => (c === '\n' ? '\\n' : `\\u${c.charCodeAt(0).toString(16)}`));
  return `${OPEN}${s}${CLOSE}`;
}

/** A word that cannot carry a sentence: ids, slugs, ISO times, emails. */
const TOKEN = /^[A-Za-z0-9][A-Za-z0-9._:+@-]{0,127}$/;

/** An identifier or time from the server (or echoed from the arguments): bare when it is one word, else quoted. */
export function shown(text: unknown): string {
  const s = String(text ?? '');
  return TOKEN.test(s) ? s : q(s);
}
