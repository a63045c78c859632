/**
 * One truth per flag: the bulk input is documented as `--file` everywhere (README, docs/, the
 * help texts and messages in src/); `--from` stays an alias that keeps working, and is only ever
 * named as that (its older name), never as the flag to use.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url).pathname;
const walk = (dir: string): string[] =>
  readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(join(dir, e.name)) : /\.(md|ts)$/.test(e.name) ? [join(dir, e.name)] : [],
  );
// src/mcp/ and the ledger's storage (src/state/backend.ts: a code comment) are being rewritten elsewhere.
const files = [
  'README.md',
  ...walk('docs'),
  ...walk('src').filter((f) => !f.startsWith('src/mcp/') && f !== 'src/state/backend.ts'),
];

describe('the bulk input has one documented name: --file', () => {
  it.each(files)('%s names the bulk input --file, not --from', (file) => {
    const text = readFileSync(join(root, file), 'utf8');
    const wrong = text
      .split('\n')
      .filter((line) =>
        /\b(route|reschedule) --from\b|bulk `--from`|`--from` (run|rows|file)|--from (leads|moves)\./.test(line),
      );
    expect(wrong).toEqual([]);
  });
});
