/**
 * The README and the manual (docs/*.md) link to each other by relative paths and #anchors:
 * every such link points to a file that exists and, when it has an #anchor, to a heading of that
 * file (GitHub's slugs: lower case, punctuation dropped, spaces to hyphens, -1/-2 for repeats).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const FILES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** Markdown outside fenced code blocks. */
function prose(text: string): string {
  return text.replace(/^```[\s\S]*?^```$/gm, '');
}

export function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/ /g, '-');
}

function anchors(file: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of prose(readFileSync(join(ROOT, file), 'utf8')).matchAll(/^#{1,6} (.*)$/gm)) {
    const base = slug(m[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

describe('links in README.md and docs/*.md', () => {
  it('computes GitHub heading slugs', () => {
    expect(slug('JSON output (`--json`)')).toBe('json-output---json');
    expect(slug('Post-deploy smoke checks: `schedctl smoke`')).toBe('post-deploy-smoke-checks-schedctl-smoke');
  });

  it.each(FILES)('%s: every relative link resolves to a file and heading', (file) => {
    const broken: string[] = [];
    const text = prose(readFileSync(join(ROOT, file), 'utf8')).replace(/`[^`\n]*`/g, '');
    for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const href = m[1]!;
      if (/^[a-z]+:/i.test(href)) continue;
      const [path, anchor] = href.split('#') as [string, string | undefined];
      const target = path === '' ? file : relative(ROOT, join(dirname(join(ROOT, file)), path));
      if (!existsSync(join(ROOT, target))) {
        broken.push(`${href} (no file ${target})`);
        continue;
      }
      if (anchor !== undefined && target.endsWith('.md') && !anchors(target).has(anchor))
        broken.push(`${href} (no heading #${anchor} in ${target})`);
    }
    expect(broken).toEqual([]);
  });
});
