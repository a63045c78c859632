// Renders the help topics of src/help/ (what `schedctl help environment|exit-codes|formatting`
// prints) into the README, between marker comments:
//   <!-- generated:exit-codes --> … <!-- /generated:exit-codes -->
// so the README's tables and the CLI's topics are one source. Edit src/help/*.json, then run this.
// Usage: node scripts/gen-docs.mjs           rewrite the README's generated sections
//        node scripts/gen-docs.mjs --check   exit 1, naming them, when any is out of date
// (test/e2e/help.test.ts runs --check.)
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const README = `${root}README.md`;
/** The README's marker names: each is a topic, src/help/<marker>.json. */
const MARKERS = ['environment', 'exit-codes', 'formatting'];
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
const before = readFileSync(README, 'utf8');
let after = before;
const stale = [];
for (const [marker, topic] of topics) {
  const pattern = new RegExp(`<!-- generated:${marker} -->[\\s\\S]*?<!-- /generated:${marker} -->`);
  if (!pattern.test(after)) {
    console.error(`README.md has no <!-- generated:${marker} --> … <!-- /generated:${marker} --> section`);
    process.exit(1);
  }
  const next = after.replace(pattern, () => renderSection(marker, topic));
  if (next !== after) stale.push(marker);
  after = next;
}
if (process.argv.includes('--check')) {
  if (stale.length) {
    console.error(`README.md is out of date with src/help/ (${stale.join(', ')}): run \`node scripts/gen-docs.mjs\``);
    process.exit(1);
  }
  console.log('README.md generated sections are current');
} else {
  if (after !== before) writeFileSync(README, after);
  console.log(stale.length ? `README.md: rewrote ${stale.join(', ')}` : 'README.md: already current');
}
