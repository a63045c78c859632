/**
 * `schedctl help <topic>`: prints one topic of src/help/ (the same rows the manual's generated
 * tables hold). Command help (`schedctl help route`) never gets here: the definition answers it
 * in the front (src/commands/help.ts).
 */
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { TOPICS } from '../help/topics.js';
import type { HelpTopic } from '../help/types.js';

const WIDTH = 80;

export async function run(ctx: Context, [name = '']: string[]): Promise<void> {
  const topic = TOPICS.find((t) => t.name === name);
  if (!topic) {
    throw new UsageError(`unknown help topic "${name}"`, {
      hint: `topics: ${TOPICS.map((t) => t.name).join(', ')}; or \`schedctl help <command>\``,
    });
  }
  if (ctx.globals.json) {
    const rows = topic.rows.map((r) => ({
      term: plain(r.term),
      text: plain(r.text),
      ...(r.shape !== undefined ? { shape: r.shape } : {}),
    }));
    ctx.io.stdout.write(`${JSON.stringify({ topic: topic.name, rows }, null, 2)}\n`);
    return;
  }
  ctx.io.stdout.write(renderTopic(topic));
}

/** The topic as terminal text: paragraphs, then the rows (shapes under their command), then the closing notes. */
export function renderTopic(topic: HelpTopic): string {
  const out: string[] = [];
  for (const p of topic.intro) out.push(...wrap(plain(p), WIDTH, ''), '');
  const hasShapes = topic.rows.some((r) => r.shape !== undefined);
  if (hasShapes) {
    for (const r of topic.rows) {
      out.push(`  ${plain(r.term)}`);
      if (r.shape) out.push(...wrap(r.shape, WIDTH, '      ', '    '));
      if (r.text) out.push(...wrap(plain(r.text), WIDTH, '      ', '    '));
    }
  } else {
    // A term longer than this (several variables) gets its text on the lines below it.
    const fits = (term: string) => term.length <= 24;
    const termWidth = Math.max(
      ...topic.rows
        .map((r) => plain(r.term))
        .filter(fits)
        .map((t) => t.length),
    );
    const indent = ' '.repeat(termWidth + 4);
    for (const r of topic.rows) {
      const term = plain(r.term);
      if (fits(term)) out.push(...wrap(plain(r.text), WIDTH, indent, `  ${term.padEnd(termWidth)}  `));
      else out.push(`  ${term}`, ...wrap(plain(r.text), WIDTH, indent));
    }
  }
  out.push('');
  for (const p of topic.outro) out.push(...wrap(plain(p), WIDTH, ''), '');
  return `${out.join('\n').replace(/\n+$/, '')}\n`;
}

/** Backticks mark code in the manual; on a terminal the words stand alone. */
function plain(text: string): string {
  return text.replace(/`/g, '');
}

/** Wraps at spaces; `first` prefixes the first line, `indent` the others. */
function wrap(text: string, width: number, indent: string, first = indent): string[] {
  const lines: string[] = [];
  let line = first;
  let empty = true;
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (!empty && line.length + 1 + word.length > width) {
      lines.push(line);
      line = indent + word;
    } else {
      line += (empty ? '' : ' ') + word;
    }
    empty = false;
  }
  lines.push(line);
  return lines;
}
