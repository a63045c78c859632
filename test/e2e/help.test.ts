/**
 * Help as a gh user expects it, through the built CLI: each command's help shows its own flags
 * and names the global ones once, compactly; `schedctl --help` describes them in full and lists
 * the help topics; `schedctl help <command...>` and `schedctl help <topic>` work; the manual's
 * tables (docs/) are the topics' rows (scripts/gen-docs.mjs).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HELP_TOPICS } from '../../src/commands/help.js';
import { EXIT } from '../../src/errors.js';
import { TOPICS } from '../../src/help/topics.js';
import { runCli, show, type RunResult } from '../helpers/cli.js';

const ROOT = resolve(import.meta.dirname, '../..');
const topicNamed = (name: string) => TOPICS.find((t) => t.name === name)!;
const GLOBALS = ['--json', '--profile', '--base-url', '--timeout', '--debug', '--no-color', '--no-input', '--quiet'];
const plain = (s: string) => s.replace(/`/g, '');

/** The command paths under a help text's "Commands:" list (commander's own `help` left out). */
function subcommands(helpText: string): string[] {
  const block = helpText.split(/^Commands:\n/m)[1]?.split(/\n\n/)[0] ?? '';
  return [...block.matchAll(/^ {2}([a-z][\w-]*)/gm)].map((m) => m[1]!).filter((n) => n !== 'help');
}

describe("a command's --help", () => {
  it('lists its own flags, then the global flags once in a compact block of one or two lines', async () => {
    const root = await runCli(['--help']);
    // Each command's help, run once: a group's help also names its subcommands.
    const helps = new Map<string, Promise<RunResult>>();
    const help = (path: string[]) => {
      const key = path.join(' ');
      if (!helps.has(key)) helps.set(key, runCli([...path, '--help']));
      return helps.get(key)!;
    };
    const paths: string[][] = [];
    for (const name of subcommands(root.stdout)) {
      paths.push([name]);
      for (const sub of subcommands((await help([name])).stdout)) paths.push([name, sub]);
    }
    expect(paths.length).toBeGreaterThan(15);
    for (const path of paths) {
      const r = await help(path);
      expect(r.code, show(r)).toBe(0);
      const out = r.stdout;
      expect(out, path.join(' ')).toMatch(/^Usage: schedctl /);
      expect(out).not.toContain('Global Options:');
      expect(out).toMatch(/^Flags:\n {2}/m);
      const blocks = out.match(/^Global flags: .*(\n {2}\S.*)*/gm) ?? [];
      expect(blocks, `${path.join(' ')}: one Global flags block`).toHaveLength(1);
      expect(blocks[0]!.split('\n').length, path.join(' ')).toBeLessThanOrEqual(2);
      for (const flag of GLOBALS) expect(blocks[0], `${path.join(' ')} names ${flag}`).toContain(flag);
      expect(blocks[0]).toContain('(see schedctl help)');
      // The global flags are not described again, line by line, under the command's own.
      for (const flag of ['--json', '--base-url', '--debug'])
        expect(out).not.toMatch(new RegExp(`^ {2}(-\\w, )?${flag}( <\\w+>)? {2,}\\S`, 'm'));
    }
  }, 120_000);

  it('keeps the whole list of global flags, described, in `schedctl --help`, with the topics', async () => {
    const r = await runCli(['--help']);
    expect(r.code, show(r)).toBe(0);
    for (const flag of GLOBALS) expect(r.stdout).toMatch(new RegExp(`^ {2}(-\\w, )?${flag}\\b.*\\S`, 'm'));
    expect(r.stdout).not.toContain('Global flags:');
    const topics = r.stdout.split(/^Help topics:\n/m)[1]!.split('\n\n')[0]!;
    for (const t of TOPICS)
      expect(topics).toMatch(new RegExp(`^ {2}${t.name}\\s+${t.summary.replace(/[()]/g, '\\$&')}$`, 'm'));
    expect(r.stdout).toContain('schedctl help <topic>');
  });

  it('explains every argument of `profile add`', async () => {
    const r = await runCli(['profile', 'add', '--help']);
    expect(r.code, show(r)).toBe(0);
    const out = r.stdout.replace(/\s+/g, ' ');
    expect(out).toContain('Usage: schedctl profile add [flags] <name>');
    expect(out).toContain('1–64 letters, digits, _ . -');
    expect(out).toContain('--key-stdin read the API key from stdin');
    expect(out).toContain('hidden prompt');
    expect(out).toContain('--default make it the default profile');
    expect(out).toContain('--no-verify');
    expect(out).toContain('Never accepted as a command-line argument or flag');
    expect(out).toContain(
      'The global --base-url given to this command (default: the local sandbox, http://127.0.0.1:4010)',
    );
    expect(out).toContain('GET /v1/triggers');
    // The hidden key options stay hidden, and no argument without a description is listed.
    expect(r.stdout).not.toMatch(/--key <|--api-key|^ +refused/m);
  });
});

describe('schedctl help', () => {
  it("shows the program help, and a command's help for one word or a path of words", async () => {
    expect((await runCli(['help'])).stdout).toBe((await runCli(['--help'])).stdout);
    for (const path of [['route'], ['triggers', 'ls'], ['profile', 'add'], ['events', 'show'], ['triggers', 'list']]) {
      const viaHelp = await runCli(['help', ...path]);
      expect(viaHelp.code, show(viaHelp)).toBe(0);
      expect(viaHelp.stdout).toBe((await runCli([...path, '--help'])).stdout);
    }
  });

  it('prints each topic from the same rows as the manual', async () => {
    for (const topic of TOPICS) {
      const r = await runCli(['help', topic.name]);
      expect(r.code, show(r)).toBe(0);
      const out = r.stdout.replace(/\s+/g, ' ');
      for (const row of topic.rows) {
        expect(out, `${topic.name}: ${row.term}`).toContain(plain(row.term));
        expect(out).toContain(plain(row.text).replace(/\s+/g, ' ').split(' ').slice(0, 4).join(' '));
      }
    }
  });

  it('lists every exit code in `help exit-codes`, 8 (a bulk --file run with failed rows) included', async () => {
    const r = await runCli(['help', 'exit-codes']);
    for (const code of [...new Set([...Object.values(EXIT), 8])])
      expect(r.stdout).toMatch(new RegExp(`^ {2}${code}\\s+\\S`, 'm'));
    expect(r.stdout).toMatch(/^ {2}8\s+some rows of a bulk --file run failed \(the summary names them\)/m);
  });

  it('prints a topic as one JSON document with --json', async () => {
    const r = await runCli(['help', 'exit-codes', '--json']);
    expect(r.code, show(r)).toBe(0);
    const doc = r.json();
    expect(doc.topic).toBe('exit-codes');
    expect(doc.rows.map((row: { term: string }) => row.term)).toEqual(
      topicNamed('exit-codes').rows.map((row) => row.term),
    );
  });

  it('explains `formatting` with the shape of every command that prints JSON', async () => {
    const r = await runCli(['help', 'formatting']);
    for (const cmd of [
      'route',
      'triggers ls',
      'trigger fire',
      'events ls',
      'events show',
      'slots',
      'book',
      'reschedule',
      'api',
      'smoke',
      'profile add',
      'profile ls',
      'sandbox',
    ]) {
      expect(r.stdout).toMatch(new RegExp(`^ {2}${cmd}\\b`, 'm'));
    }
    expect(r.stdout).toContain('{"error": {"code", "message", "details", "status", "hint"}}');
  });

  it('rejects an unknown topic or command with exit 2, naming the topics', async () => {
    const r = await runCli(['help', 'enviroment']);
    expect(r.code, show(r)).toBe(2);
    expect(r.stderr).toContain('unknown command or help topic "enviroment"');
    expect(r.stderr).toContain('environment, exit-codes, formatting');
    const deep = await runCli(['help', 'triggers', 'nope', '--json']);
    expect(deep.code).toBe(2);
    expect(deep.json().error.code).toBe('USAGE');
  });

  it('lists in `schedctl --help` exactly the topics src/help/ holds', () => {
    expect(HELP_TOPICS.map(([name, summary]) => ({ name, summary }))).toEqual(
      TOPICS.map(({ name, summary }) => ({ name, summary })),
    );
  });
});

/** The manual's page of each topic's generated table (the map in scripts/gen-docs.mjs). */
const PAGES: Record<string, string> = {
  environment: 'docs/environment.md',
  'exit-codes': 'docs/exit-codes-and-errors.md',
  formatting: 'docs/json-output.md',
};

describe("the manual's tables", () => {
  it('are the help topics, regenerated by `node scripts/gen-docs.mjs`', () => {
    const r = spawnSync(process.execPath, [join(ROOT, 'scripts/gen-docs.mjs'), '--check'], { encoding: 'utf8' });
    expect(r.status, `${r.stdout}${r.stderr}`).toBe(0);
  });

  it('read from topic files whose rows fit their columns (the JSON is typed by a cast)', () => {
    for (const topic of TOPICS) {
      expect([2, 3], topic.name).toContain(topic.columns.length);
      expect(topic.summary.length, topic.name).toBeGreaterThan(0);
      for (const row of topic.rows) {
        expect(typeof row.term === 'string' && typeof row.text === 'string', `${topic.name}: ${row.term}`).toBe(true);
        expect(typeof row.shape === 'string', `${topic.name}: ${row.term} has a shape`).toBe(
          topic.columns.length === 3,
        );
      }
    }
  });

  it('hold every row of every topic between its markers', () => {
    expect(Object.keys(PAGES).sort()).toEqual(TOPICS.map((t) => t.name).sort());
    for (const topic of TOPICS) {
      const page = PAGES[topic.name]!;
      const section = readFileSync(join(ROOT, page), 'utf8')
        .split(`<!-- generated:${topic.name} -->`)[1]
        ?.split(`<!-- /generated:${topic.name} -->`)[0];
      expect(section, `${page}: <!-- generated:${topic.name} --> section`).toBeDefined();
      for (const row of topic.rows) expect(section).toContain(`| ${row.term.replace(/\|/g, '\\|')} |`);
    }
  });
});
