import type TableClass from 'cli-table3';
import { sanitizeText } from './sanitize.js';

/** A cell styled by us (a colored PASS): its text is sanitized, then the style is applied. */
export interface StyledCell {
  text: string;
  style: (text: string) => string;
}
export type Cell = string | number | StyledCell;

/** Cell text is data: a server's control characters are shown escaped, never passed to the terminal. */
function cellText(cell: Cell): string {
  if (typeof cell === 'object') return cell.style(sanitizeText(cell.text));
  return sanitizeText(String(cell));
}

export type RenderTable = (head: string[], rows: Array<Array<Cell>>, opts: { color: boolean }) => string;

/**
 * The table renderer, loaded on first use: cli-table3 (with its string-width) is a measurable
 * part of a command's start, and `--json` output never needs it.
 */
export async function tables(): Promise<RenderTable> {
  // A CommonJS module: the class is the namespace's default export.
  const mod = (await import('cli-table3')) as unknown as { default?: typeof TableClass } & typeof TableClass;
  const Table = mod.default ?? mod;
  return (head, rows, opts) => renderWith(Table, head, rows, opts);
}

/** A borderless table for stdout; plain (no color codes) when colors are off. */
function renderWith(
  Table: typeof TableClass,
  head: string[],
  rows: Array<Array<Cell>>,
  opts: { color: boolean },
): string {
  const table = new Table({
    head: head.map((h) => sanitizeText(h)),
    style: { head: opts.color ? ['bold'] : [], border: [], compact: true, 'padding-left': 0, 'padding-right': 2 },
    chars: {
      top: '',
      'top-mid': '',
      'top-left': '',
      'top-right': '',
      bottom: '',
      'bottom-mid': '',
      'bottom-left': '',
      'bottom-right': '',
      left: '',
      'left-mid': '',
      mid: '',
      'mid-mid': '',
      right: '',
      'right-mid': '',
      middle: '',
    },
  });
  for (const row of rows) table.push(row.map(cellText));
  return table
    .toString()
    .split('\n')
    .map((l) => l.trimEnd())
    .join('\n');
}
