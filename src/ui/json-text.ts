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
