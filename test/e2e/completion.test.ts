/**
 * Shell completions, exercised in the real shells: bash through its completion function
 * (COMP_WORDS/COMP_CWORD → COMPREPLY), zsh through the completion function with compadd
 * recorded, fish through `complete -C`. Expectations come from the built command tree, so
 * they stay true while commands are added.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Command } from 'commander';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN, baseEnv, registerSecret, runCli, show, tempDir } from '../helpers/cli.js';

const ROOT = resolve(import.meta.dirname, '../..');
const KEY = 'sk_test_completion_0123456789abcdef';
registerSecret(KEY);

const hasShell = (shell: string) => spawnSync('sh', ['-c', `command -v ${shell}`]).status === 0;
const skipNote = (shell: string) =>
  hasShell(shell) ? shell : `${shell} (SKIPPED: ${shell} is not installed; .ci/install-tools.sh installs it)`;

/** The built program's visible tree: what completion must offer. */
interface Tree {
  names: string[];
  sub(name: string): Command | undefined;
}
async function builtTree(): Promise<Tree> {
  const { buildProgram } = (await import(pathToFileURL(join(ROOT, 'dist/cli.cjs')).href)) as {
    buildProgram: (ctx: unknown) => Command;
  };
  // buildProgram only wires output streams at build time; actions never run here.
  const program = buildProgram({ io: { stdout: process.stdout, stderr: process.stderr } });
  const visible = program.commands.filter((c) => !(c as unknown as { _hidden: boolean })._hidden);
  return {
    names: visible.flatMap((c) => [c.name(), ...c.aliases()]),
    sub: (name) => visible.find((c) => c.name() === name),
  };
}

const longFlags = (cmd: Command) => cmd.options.filter((o) => !o.hidden && o.long).map((o) => o.long as string);

let tree: Tree;
let configDir: string;
let binDir: string; // holds `schedctl` and `sc` (another name) pointing at the built binary
const scripts: Record<string, string> = {};

beforeAll(async () => {
  tree = await builtTree();
  configDir = tempDir();
  for (const name of ['alpha', 'beta.staging']) {
    // No API behind the default base URL: save without the key check.
    const r = await runCli(['profile', 'add', name, '--key-stdin', '--no-verify'], { configDir, input: `${KEY}\n` });
    expect(r.code, show(r)).toBe(0);
  }
  writeFileSync(join(configDir, 'body.json'), '{}');
  binDir = tempDir('schedctl-bin-');
  symlinkSync(BIN, join(binDir, 'schedctl'));
  symlinkSync(BIN, join(binDir, 'sc'));
  for (const shell of ['bash', 'zsh', 'fish']) {
    const r = await runCli(['completion', shell]);
    expect(r.code, show(r)).toBe(0);
    scripts[shell] = join(configDir, `completion.${shell}`);
    writeFileSync(scripts[shell], r.stdout);
  }
});

function shellEnv(extra: Record<string, string> = {}): Record<string, string> {
  return { ...baseEnv(configDir), PATH: `${binDir}:${process.env.PATH ?? ''}`, ...extra };
}

function runShell(shell: string, args: string[], env: Record<string, string>): string[] {
  // cwd: a directory holding body.json, for file-name completion.
  const r = spawnSync(shell, args, { env, cwd: configDir, encoding: 'utf8', timeout: 20_000 });
  if (r.status !== 0) throw new Error(`${shell} exited ${r.status}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
  return r.stdout.split('\n').filter(Boolean);
}

/** Bash candidates for the words (the last one is being completed). */
function bash(words: string[], extra = ''): string[] {
  const script = `source "$SCRIPT"; ${extra}
COMP_WORDS=(); for w in "$@"; do COMP_WORDS+=("$w"); done
COMP_CWORD=$((\${#COMP_WORDS[@]} - 1)); COMPREPLY=()
_schedctl
printf '%s\\n' "\${COMPREPLY[@]}"`;
  return runShell(
    'bash',
    ['--norc', '--noprofile', '-c', script, 'bash', ...words],
    shellEnv({ SCRIPT: scripts.bash! }),
  );
}

/** zsh candidates: the completion function run with compadd recording what it is given. */
function zsh(words: string[]): string[] {
  const script = `compadd() { while (( $# )); do if [[ $1 == -- ]]; then shift; print -rl -- "$@"; return 0; fi; shift; done }
compset() { : }
compdef() { : }
source "$SCRIPT"
words=("$@"); CURRENT=$#words
_schedctl`;
  return runShell('zsh', ['-f', '-c', script, 'zsh', ...words], shellEnv({ SCRIPT: scripts.zsh! }));
}

/** fish candidates (without their descriptions) for a command line. */
function fish(line: string, extra = ''): string[] {
  const script = `source "$SCRIPT"; ${extra}; complete -C "$LINE"`;
  return runShell('fish', ['--no-config', '-c', script], shellEnv({ SCRIPT: scripts.fish!, LINE: line })).map(
    (l) => l.split('\t')[0]!,
  );
}

describe('schedctl completion', () => {
  it('prints a script for each shell and rejects other shells with exit 2', async () => {
    const bad = await runCli(['completion', 'tcsh']);
    expect(bad.code, show(bad)).toBe(2);
    expect(bad.stderr).toMatch(/bash, zsh, fish/);
    const json = await runCli(['completion', 'fish', '--json']);
    expect(json.json()).toEqual({ shell: 'fish', script: readFileSync(scripts.fish!, 'utf8') });
  });

  it('keeps the committed completions/ in step with the built CLI', () => {
    const files = { bash: 'schedctl.bash', zsh: '_schedctl', fish: 'schedctl.fish' };
    for (const [shell, file] of Object.entries(files)) {
      const committed = existsSync(join(ROOT, 'completions', file))
        ? readFileSync(join(ROOT, 'completions', file), 'utf8')
        : '';
      const current = readFileSync(scripts[shell]!, 'utf8');
      expect(committed === current, `completions/${file} is stale: run \`npm run build && npm run completions\``).toBe(
        true,
      );
    }
  });

  it('lists profile names from the local config only, one per line, without keys', async () => {
    const r = await runCli(['completion', '__complete', 'profiles'], { configDir });
    expect(r.code, show(r)).toBe(0);
    expect(r.stdout).toBe('alpha\nbeta.staging\n');
    const emptyDir = join(tempDir(), 'never-created');
    const none = await runCli(['completion', '__complete', 'profiles'], { configDir: emptyDir });
    expect(none.code, show(none)).toBe(0);
    expect(none.stdout + none.stderr).toBe('');
    expect(existsSync(emptyDir), 'completing must not create a config dir').toBe(false);
  });
});

describe.skipIf(!hasShell('bash'))(skipNote('bash'), () => {
  it('registers for schedctl', () => {
    expect(
      runShell('bash', ['--norc', '-c', 'source "$SCRIPT"; complete -p schedctl'], shellEnv({ SCRIPT: scripts.bash! })),
    ).toEqual(['complete -F _schedctl schedctl']);
  });

  it('completes the top-level commands, without hidden ones', () => {
    const got = bash([BIN, '']);
    expect(got).toEqual(expect.arrayContaining(['profile', 'api', 'sandbox', 'completion', ...tree.names]));
    expect(got).not.toContain('__complete');
    expect(bash([BIN, 'pro'])).toEqual(['profile']);
  });

  it('completes the subcommands of every command that has them', () => {
    expect(bash([BIN, 'profile', ''])).toEqual(expect.arrayContaining(['add', 'ls', 'use', 'rm', 'show']));
    for (const name of ['triggers', 'trigger', 'events']) {
      const cmd = tree.sub(name);
      if (!cmd || cmd.commands.length === 0) continue;
      expect(bash([BIN, name, '']), name).toEqual(expect.arrayContaining(cmd.commands.map((c) => c.name())));
    }
  });

  it("completes a command's own flags and the global ones", () => {
    expect(bash([BIN, 'api', '--'])).toEqual(
      expect.arrayContaining(['--data', '--json', '--profile', '--base-url', '--no-input']),
    );
    expect(bash([BIN, 'api', '--d'])).toEqual(['--data', '--debug']);
    const book = tree.sub('book');
    if (book) expect(bash([BIN, 'book', '--'])).toEqual(expect.arrayContaining([...longFlags(book), '--json']));
    // A value-taking flag's value is not mistaken for a subcommand or an argument.
    expect(bash([BIN, '--profile', 'alpha', 'pro'])).toEqual(['profile']);
  });

  it('completes file names after @ for flags that read a file', () => {
    expect(bash([BIN, 'api', 'GET', '/v1/triggers', '--data', '@bo'])).toEqual(['@body.json']);
  });

  it('completes the shells of `completion`', () => {
    expect(bash([BIN, 'completion', ''])).toEqual(['bash', 'zsh', 'fish']);
  });

  it('completes profile names from the local config, also under another name', () => {
    expect(bash([BIN, 'profile', 'use', ''])).toEqual(['alpha', 'beta.staging']);
    expect(bash([BIN, 'profile', 'rm', 'b'])).toEqual(['beta.staging']);
    expect(bash([BIN, '--profile', ''])).toEqual(['alpha', 'beta.staging']);
    expect(bash([BIN, '-p', 'a'])).toEqual(['alpha']);
    expect(bash([BIN, 'api', '--profile', '=', 'be'])).toEqual(['beta.staging']); // --profile=be, as bash splits it
    expect(bash(['sc', 'profile', 'show', ''], 'complete -F _schedctl sc')).toEqual(['alpha', 'beta.staging']);
  });
});

describe.skipIf(!hasShell('zsh'))(skipNote('zsh'), () => {
  it('passes zsh -n', () => {
    expect(runShell('zsh', ['-n', scripts.zsh!], shellEnv())).toEqual([]);
  });

  it('offers commands, subcommands, flags, shells and profile names', () => {
    expect(zsh([BIN, ''])).toEqual(expect.arrayContaining(['profile', 'api', 'sandbox', 'completion', ...tree.names]));
    expect(zsh([BIN, ''])).not.toContain('__complete');
    expect(zsh([BIN, 'profile', ''])).toEqual(expect.arrayContaining(['add', 'ls', 'use', 'rm', 'show']));
    const triggers = tree.sub('triggers');
    if (triggers)
      expect(zsh([BIN, 'triggers', ''])).toEqual(expect.arrayContaining(triggers.commands.map((c) => c.name())));
    const book = tree.sub('book');
    if (book) expect(zsh([BIN, 'book', '--'])).toEqual(expect.arrayContaining([...longFlags(book), '--json']));
    expect(zsh([BIN, 'api', '-'])).toEqual(expect.arrayContaining(['-d', '--data', '-p', '--profile']));
    expect(zsh([BIN, 'completion', ''])).toEqual(['bash', 'zsh', 'fish']);
    expect(zsh([BIN, 'profile', 'use', ''])).toEqual(['alpha', 'beta.staging']);
    expect(zsh(['sc', '--profile='])).toEqual(['alpha', 'beta.staging']); // another name, one-word --flag=value
  });
});

/**
 * A real interactive zsh in a pseudo-terminal (zpty): compinit autoloads _schedctl from
 * $fpath, Tabs are typed, and a key bound to a widget writes the resulting command line.
 */
const ZPTY = `zmodload zsh/zpty
zpty z "zsh -f -i"
zpty -w z "PS1='> '; fpath=($FUNCS \\$fpath); autoload -U compinit; compinit -u -D; show() { print -r -- \\"<\\$BUFFER>\\" > $OUT }; zle -N show; bindkey '^X' show"
zpty -wn z $'schedctl pro\\tus\\tal\\t -p be\\t --js\\t\\x18'
for i in {1..150}; do [[ -s $OUT ]] && break; sleep 0.1; done
zpty -d z`;

describe.skipIf(!hasShell('zsh'))(`${skipNote('zsh')}, interactive`, () => {
  it('completes a whole command line through compinit, autoloaded from $fpath', () => {
    const funcs = join(configDir, 'zfunc');
    mkdirSync(funcs, { recursive: true });
    copyFileSync(scripts.zsh!, join(funcs, '_schedctl'));
    const out = join(configDir, 'zle-buffer');
    runShell('zsh', ['-f', '-c', ZPTY], shellEnv({ FUNCS: funcs, OUT: out, TERM: 'dumb' }));
    expect(existsSync(out) ? readFileSync(out, 'utf8').trim() : '(no buffer written)').toBe(
      '<schedctl profile use alpha -p beta.staging --json >',
    );
  });
});

describe.skipIf(!hasShell('fish'))(skipNote('fish'), () => {
  it('passes fish --no-execute', () => {
    expect(runShell('fish', ['--no-execute', scripts.fish!], shellEnv())).toEqual([]);
  });

  it('offers commands, subcommands, flags, shells and profile names', () => {
    expect(fish('schedctl ')).toEqual(
      expect.arrayContaining(['profile', 'api', 'sandbox', 'completion', ...tree.names]),
    );
    expect(fish('schedctl ')).not.toContain('__complete');
    expect(fish('schedctl pro')).toEqual(['profile']);
    expect(fish('schedctl profile ')).toEqual(expect.arrayContaining(['add', 'ls', 'use', 'rm', 'show']));
    const triggers = tree.sub('triggers');
    if (triggers)
      expect(fish('schedctl triggers ')).toEqual(expect.arrayContaining(triggers.commands.map((c) => c.name())));
    const book = tree.sub('book');
    if (book) expect(fish('schedctl book --')).toEqual(expect.arrayContaining([...longFlags(book), '--json']));
    expect(fish('schedctl api --da')).toEqual(['--data']);
    expect(fish('schedctl completion ')).toEqual(['bash', 'zsh', 'fish']);
    expect(fish('schedctl profile use ')).toEqual(['alpha', 'beta.staging']);
    expect(fish('schedctl api GET /v1/triggers --data=@bo')).toEqual(['--data=@body.json']);
    expect(fish('schedctl --profile=b')).toEqual(['--profile=beta.staging']);
    expect(fish('sc -p ', 'complete -c sc --wraps schedctl')).toEqual(['alpha', 'beta.staging']);
  });
});
