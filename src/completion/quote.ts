/** Quoting for the generated scripts: every name and description passes through here. */

/** A single-quoted word for bash and zsh. */
export function shQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** A single-quoted word for fish (which escapes \ and ' inside single quotes). */
export function fishQuote(text: string): string {
  return `'${text.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
}
