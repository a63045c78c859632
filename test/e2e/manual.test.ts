/**
 * The manual travels with the package: every page of docs/ (but the contributor pages, which
 * package.json's "files" leaves out) is in the installed copy, every
 * relative link of its README and pages resolves there, `--help` names the manual's index in
 * that copy, every `docs/<page>.md` a help text or message names is one of its pages, and the
 * package runs no install script. Against the checkout normally; against the installed tarball
 * under `npm run test:installed` (scripts/test-installed.mjs also holds the tarball under 500 kB
 * and its install free of warnings).
 */
import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, runCli, show } from '../helpers/cli.js';

const checkout = resolve(import.meta.dirname, '../..');
/** The package as it runs: the checkout, or the installed copy behind npm's bin link. */
const pkgRoot = resolve(dirname(realpathSync(BIN)), '..');
/** The contributor pages stay in the repository: package.json's "files" leaves them out (`!docs/<page>.md`). */
const manifest = JSON.parse(readFileSync(join(checkout, 'package.json'), 'utf8')) as { files: string[] };
const contributorPages = new Set(manifest.files.flatMap((f) => /^!docs\/([^/*]+\.md)$/.exec(f)?.[1] ?? []));
const pages = readdirSync(join(checkout, 'docs')).filter((f) => f.endsWith('.md') && !contributorPages.has(f));

const walk = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );

describe('the manual travels with the package', () => {
  it('has every page of docs/', () => {
    for (const page of pages) expect(existsSync(join(pkgRoot, 'docs', page)), page).toBe(true);
  });

  it('resolves every relative link of the README and of every page in the package', () => {
    const broken: string[] = [];
    for (const file of ['README.md', ...pages.map((p) => `docs/${p}`)]) {
      const text = readFileSync(join(pkgRoot, file), 'utf8');
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^(https?:|mailto:|#)/.test(target!)) continue;
        const path = target!.replace(/#.*$/, '');
        if (!existsSync(resolve(pkgRoot, dirname(file), path))) broken.push(`${file}: ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('--help names the manual as installed, and it is there', async () => {
    const r = await runCli(['--help']);
    expect(r.code, show(r)).toBe(0);
    const manual = join(pkgRoot, 'docs', 'README.md');
    expect(r.stdout).toContain(manual);
    expect(existsSync(manual)).toBe(true);
    expect(r.stdout).not.toContain('docs/README.md is the manual');
  });

  it('every docs/<page>.md a help text or message names is a page of the package', () => {
    const named = new Set<string>();
    const toContributors: string[] = [];
    for (const file of walk(join(checkout, 'src')))
      for (const line of readFileSync(file, 'utf8').split('\n'))
        for (const [, page] of line.matchAll(/\bdocs\/([a-z0-9-]+\.md)/g)) {
          // A comment may cite a contributor page for whoever reads the code; a message may not.
          if (!contributorPages.has(page!)) named.add(page!);
          else if (!/^\s*(\/\/|\/?\*)/.test(line)) toContributors.push(`${file}: ${line.trim()}`);
        }
    expect(toContributors).toEqual([]);
    expect(named.size).toBeGreaterThan(3);
    for (const page of named) expect(existsSync(join(pkgRoot, 'docs', page)), page).toBe(true);
  });

  it('names a homepage (npm shows it; the manual itself is in the package)', () => {
    const pkg = JSON.parse(readFileSync(join(pkgRoot, 'package.json'), 'utf8')) as { homepage?: string };
    expect(pkg.homepage).toMatch(/^https:\/\/\S+$/);
  });

  it.runIf(process.env.SCHEDCTL_TEST_TARBALL)('runs no script when installed', () => {
    const pkg = JSON.parse(readFileSync(join(pkgRoot, 'package.json'), 'utf8')) as { scripts?: object };
    for (const name of ['preinstall', 'install', 'postinstall', 'preprepare', 'prepare', 'postprepare'])
      expect(Object.keys(pkg.scripts ?? {})).not.toContain(name);
  });
});
