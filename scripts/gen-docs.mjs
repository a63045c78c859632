// Renders the help topics of src/help/ (what `schedctl help environment|exit-codes|formatting`
// prints) into the manual's pages (docs/), between marker comments:
//   <!-- generated:exit-codes --> … <!-- /generated:exit-codes -->
// so the manual's tables and the CLI's topics are one source. Edit src/help/*.json, then run this.
// Usage: node scripts/gen-docs.mjs           rewrite the manual's generated sections
//        node scripts/gen-docs.mjs --check   exit 1, naming them, when any is out of date
// (test/e2e/help.test.ts runs --check.)
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
/** Each marker is a topic, src/help/<marker>.json, and lives in one page of the manual. */
export const PAGES = {
  environment: 'docs/environment.md',
  'exit-codes': 'docs/exit-codes-and-errors.md',
  formatting: 'docs/json-output.md',
};
const MARKERS = Object.keys(PAGES);
const loadTopics = () =>
  MARKERS.map((marker) => [marker, JSON.parse(readFileSync(`${root}src/help/${marker}.json`, 'utf8'))]);

const cell = (text) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
/** A JSON shape is code; a word such as "Meeting" or "the response body" is prose. */
const shapeCell = (shape) => (/^[{[]/.test(shape) ? `\`${shape}\`` : shape);

export function renderSection(marker, topic) {
  const lines = [
    `<!-- generated:${marker} -->`,
    `<!-- from src/help/ by \`node scripts/gen-docs.mjs\`: edit the topic there, not here -->`,
  ];
  for (const p of topic.intro) lines.push(p, '');
  lines.push(`| ${topic.columns.join(' | ')} |`, `|${topic.columns.map(() => '---').join('|')}|`);
  for (const row of topic.rows) {
    const cells = topic.columns.length === 3 ? [row.term, shapeCell(row.shape ?? ''), row.text] : [row.term, row.text];
    lines.push(`| ${cells.map(cell).join(' | ')} |`);
  }
  for (const p of topic.outro) lines.push('', p);
  lines.push(`<!-- /generated:${marker} -->`);
  return lines.join('\n');
}

const topics = loadTopics();
const stale = [];
const writes = [];
for (const [marker, topic] of topics) {
  const page = PAGES[marker];
  const before = readFileSync(`${root}${page}`, 'utf8');
  const pattern = new RegExp(`<!-- generated:${marker} -->[\\s\\S]*?<!-- /generated:${marker} -->`);
  if (!pattern.test(before)) {
    console.error(`${page} has no <!-- generated:${marker} --> … <!-- /generated:${marker} --> section`);
    process.exit(1);
  }
  const after = before.replace(pattern, () => renderSection(marker, topic));
  if (after !== before) {
    stale.push(`${page} (${marker})`);
    writes.push([page, after]);
  }
}
if (process.argv.includes('--check')) {
  if (stale.length) {
    console.error(`out of date with src/help/: ${stale.join(', ')}: run \`node scripts/gen-docs.mjs\``);
    process.exit(1);
  }
  console.log("the manual's generated sections are current");
} else {
  for (const [page, text] of writes) writeFileSync(`${root}${page}`, text);
  console.log(stale.length ? `rewrote ${stale.join(', ')}` : "the manual's generated sections are already current");
}
