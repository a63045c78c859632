/**
 * Text from outside (the server, a local file) is data, never terminal control.
 * Control characters and bidi overrides are shown escaped (`\x1b`, `\r`, `\u202e`) so a
 * hostile trigger name cannot retitle the window (OSC 0), plant a hyperlink (OSC 8), clear
 * the screen (CSI 2 J), overwrite the line (a bare \r) or reverse the text (U+202E).
 * Line breaks are the other way server text could pose as schedctl's own output (a trigger
 * name ending in "\nerror: …"): in a one-line field (`sanitizeText`, `sanitizeDeep`) every
 * line break is shown escaped (\n, \r, VT, FF, NEL, U+2028, U+2029); a multi-line field (a
 * description) keeps its lines, each indented (`sanitizeMultiline`), so none starts a line of
 * output. `\t` passes; so does every printable character (emoji, CJK, accents).
 * `--json` output keeps its data unchanged: jsonText (below) only escapes what JSON.stringify leaves raw.
 */

// At the output sink: C0 controls except \t (0x09) and \n (0x0a, schedctl's own line breaks),
// DEL and C1 controls (NEL, U+0085, among them), the Unicode line and paragraph separators,
// and the bidi embedding/override/isolate/mark characters.
// eslint-disable-next-line no-control-regex -- matching control characters is the point.
const UNSAFE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
// eslint-disable-next-line no-control-regex -- as above.
const UNSAFE_ALL = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
/** Exactly SGR (colors and styles): ESC [ digits/semicolons m; or any other unsafe character. */
const SGR_OR_UNSAFE =
  // eslint-disable-next-line no-control-regex -- as above.
  /\x1b\[[0-9;]*m|[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
// In one field of server text: all of the above and \n too.
// eslint-disable-next-line no-control-regex -- as above.
const UNSAFE_IN_LINE = /[\x00-\x08\x0a-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
// eslint-disable-next-line no-control-regex -- as above.
const UNSAFE_IN_LINE_ALL = /[\x00-\x08\x0a-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
/** Every line break a terminal or a reader may honor: CRLF, LF, CR, VT, FF, NEL, U+2028, U+2029. */
// eslint-disable-next-line no-control-regex -- as above.
const LINE_BREAK = /\r\n|[\n\r\x0b\x0c\x85\u2028\u2029]/;

function escapeChar(ch: string): string {
  if (ch === '\r') return '\\r';
  if (ch === '\n') return '\\n';
  const code = ch.charCodeAt(0);
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/**
 * One line: the text with every control, line break and bidi character shown escaped; the
 * same string when there is none. For any field shown on a line of its own or among others.
 */
export function sanitizeText(s: string): string {
  if (!UNSAFE_IN_LINE.test(s)) return s;
  return s.replace(UNSAFE_IN_LINE_ALL, escapeChar);
}

/**
 * A multi-line field (a description): each of its lines sanitized, the second and later ones
 * starting with `indent`, so no line of the server's can begin a line of output on its own
 * (pose as "error: …"). Every kind of line break counts as one. (schedctl's own multi-line
 * text splits on \n only: there a bare \r or U+2028 is shown escaped, see mcp/call.ts.)
 */
export function sanitizeMultiline(s: string, indent = '  '): string {
  return s
    .split(LINE_BREAK)
    .map((line) => sanitizeText(line))
    .join(`\n${indent}`);
}

/**
 * A copy of a JSON-like value with every string, object keys included, sanitized: for
 * building human views of API objects. The input is never changed. Arrays and plain objects
 * are copied; other objects (Date, class instances) are returned as they are. Values are
 * expected to come from JSON (no cycles).
 */
export function sanitizeDeep<T>(value: T): T {
  return deep(value) as T;
}

function deep(value: unknown): unknown {
  if (typeof value === 'string') return sanitizeText(value);
  if (Array.isArray(value)) return value.map(deep);
  if (value !== null && typeof value === 'object') {
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) return value;
    // fromEntries defines properties, so a "__proto__" key from JSON stays a plain key.
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [sanitizeText(k), deep(v)]));
  }
  return value;
}

/**
 * For the final sink (ui print, stderr lines), where our own chalk colors may be present.
 * With `keepSgr`, exactly SGR sequences (`ESC [ <digits and ;> m`) are kept and everything
 * else is escaped; without it everything is escaped.
 *
 * Trade-off: the sink cannot tell our colors from a server's, so with colors on a hostile SGR
 * in server text passes: it can recolor or style text (at worst hide it, SGR 8), but it cannot
 * move the cursor, retitle the window, plant a link or clear the screen. Server strings are
 * meant to go through sanitizeText/sanitizeDeep when a view is built, before colors are
 * added; this is the backstop. With colors off (`keepSgr: false`) nothing passes.
 */
export function sanitizeOutput(s: string, opts: { keepSgr: boolean }): string {
  if (!UNSAFE.test(s)) return s;
  if (!opts.keepSgr) return s.replace(UNSAFE_ALL, escapeChar);
  return s.replace(SGR_OR_UNSAFE, (m) => (m.length > 1 ? m : escapeChar(m)));
}

/**
 * JSON text for stdout (`--json`, `schedctl api`): the data unchanged, and still safe when it
 * lands on a terminal. JSON.stringify already writes C0 controls as `\u001b`; DEL, C1 controls
 * (a one-byte CSI, U+009B) and bidi overrides it leaves raw. They are written as `\uXXXX`
 * escapes here: the same JSON value (a parser gets the exact strings back), but nothing a
 * terminal acts on. Outside strings JSON text is ASCII, so only string contents change.
 */
const RAW_IN_JSON = /[\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g;

export function jsonText(value: unknown, indent = 2): string {
  const text = JSON.stringify(value, null, indent) ?? 'null';
  return text.replace(RAW_IN_JSON, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
