/**
 * The shape of a help topic. Topics are pure data (the JSON files beside this one), so that the front of the bundle
 * could print them without loading anything, and so that scripts/gen-docs.mjs renders the same
 * rows into the manual (docs/). Text may hold `code` spans in backticks: the manual keeps them, the
 * terminal drops the backticks.
 */
export interface TopicRow {
  /** The left column: a variable, an exit code, a command. */
  term: string;
  /** The right column: one sentence or two. */
  text: string;
  /** For the --json shapes: the JSON document, as code. */
  shape?: string;
}

export interface HelpTopic {
  name: string;
  /** One line, as listed under "Help topics" in `schedctl --help`. */
  summary: string;
  /** Paragraphs printed before the rows. */
  intro: string[];
  /** Column headings in the manual's table: two, or three when the rows have a `shape`. */
  columns: string[];
  rows: TopicRow[];
  /** Paragraphs printed after the rows. */
  outro: string[];
}
