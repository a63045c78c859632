/**
 * The one rule for free text schedctl sends to the API (names, a phone, form answers and their
 * keys, booking responses, attribution context): no control characters. A CR/LF in a name
 * becomes a header-like line in a host's e-mail ("Ann\r\nBcc: …"), an ESC or a NUL lands in a
 * meeting's title, and a bidi override reverses what the host reads; none of them is anything a
 * person meant to type. Refused, never stripped: the person sees what was wrong and fixes it.
 *
 * Refused: the C0 controls U+0000–U+001F (tab, CR and LF among them: every answer is one line),
 * DEL U+007F, the C1 controls U+0080–U+009F (NEL among them), the line and paragraph separators
 * U+2028/U+2029, and the bidi embeddings, overrides and isolates U+202A–U+202E, U+2066–U+2069
 * (the characters of "Trojan Source"). The bidi marks (U+200E, U+200F, U+061C) pass: they occur
 * in right-to-left text copied from elsewhere and change no order beyond their neighbour.
 */

// eslint-disable-next-line no-control-regex -- matching control characters is the point.
const CONTROL = /[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
// eslint-disable-next-line no-control-regex -- as above.
const CONTROL_ALL = /[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const NAMED: Record<string, string> = { '\r': '\\r', '\n': '\\n', '\t': '\\t' };

/** A refused character as a person can read it: `\r`, `\n`, `\t`, `\x00`, `\x1b`, `\u202e`. */
export function escapeControl(ch: string): string {
  const named = NAMED[ch];
  if (named) return named;
  const code = ch.charCodeAt(0);
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** The first refused character of `text`, escaped (`\r`); undefined when there is none. */
export function controlCharacterIn(text: string): string | undefined {
  const m = CONTROL.exec(text);
  return m ? escapeControl(m[0]) : undefined;
}

/** `text` with every refused character escaped and cut to `max` characters: safe to quote in a message. */
export function shownEscaped(text: string, max = 80): string {
  const shown = text.replace(CONTROL_ALL, escapeControl);
  return shown.length <= max ? shown : `${shown.slice(0, max)}…`;
}

/** Said once, in every refusal: what is refused and that nothing left. */
export const CONTROL_REFUSAL = 'control characters, line breaks and bidi overrides are not sent to the API';

/**
 * The first string of a request body (a key or a value, at any depth) that holds a refused
 * character: where (`guestFirstName`, `responses.company`, `responses key "a\rb"`) and which.
 * The last check before a body leaves (./endpoints.ts), whichever command built it.
 */
export function bodyControlProblem(body: unknown, path = ''): { where: string; char: string } | undefined {
  if (typeof body === 'string') {
    const char = controlCharacterIn(body);
    return char ? { where: path || '(body)', char } : undefined;
  }
  if (Array.isArray(body)) {
    for (const [i, item] of body.entries()) {
      const found = bodyControlProblem(item, `${path}[${i}]`);
      if (found) return found;
    }
    return undefined;
  }
  if (body && typeof body === 'object') {
    for (const [key, value] of Object.entries(body)) {
      const keyChar = controlCharacterIn(key);
      if (keyChar) return { where: `${path ? `${path} ` : ''}key "${shownEscaped(key)}"`, char: keyChar };
      const found = bodyControlProblem(value, path ? `${path}.${key}` : key);
      if (found) return found;
    }
  }
  return undefined;
}
