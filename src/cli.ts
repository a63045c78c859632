/**
 * Builds the commander program from the command modules and runs it. Only commander and
 * the small command-definition modules load here; each action imports what it needs.
 */
import { Command, CommanderError, Option } from 'commander';
import { redactKeyLike, redactUrls } from './config/mask.js';
import { createContext, type Context } from './context.js';
import { versionDocument, versionLine } from './version.js';
import { profileCommand } from './commands/profile/index.js';
import { sandboxCommand } from './commands/sandbox.js';
import { extraCommands, isExtraCommand } from './commands/registry.js';
import { helpCommand } from './commands/help.js';
import { commandHelp, rootHelp } from './commands/help-format.js';

/** Top-level commands that need the whole tree: they list, explain or complete the others. */
const NEEDS_ALL = new Set(['help', 'completion']);

/**
 * The command the words name (the first that is not a global flag or its value), when only
 * that one need be built: a command's definition and its subcommands, not the 15 others
 * (building all is about 8 ms of every run). Undefined when all are needed: no command, an
 * unknown or misspelled one (the suggestion needs every name), `help` and `completion`, and a
 * `--help` before the command. `takesValue`: the global flags whose next word is their value.
 */
export function soleCommand(
  argv: readonly string[],
  known: (name: string) => boolean,
  takesValue: ReadonlySet<string>,
): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    // `schedctl --help triggers` is the program's help: it lists every command.
    if (word === '--' || word === '-h' || word === '--help') return undefined;
    if (word.startsWith('-')) {
      if (takesValue.has(word)) i++;
      continue;
    }
    return known(word) && !NEEDS_ALL.has(word) ? word : undefined;
  }
  return undefined;
}

/** The program with every command, or with `argv`, only the command it runs when that is enough (soleCommand). */
export function buildProgram(ctx: Context, argv?: readonly string[]): Command {
  // With --json or --quiet, runProgram says a usage error in one line (or none): not commander's lines and help.
  const writeErr = (s: string) => {
    if (!argv || !(scripted(argv) || quiet(argv))) ctx.io.stderr.write(redactUrls(redactKeyLike(s)));
  };
  const program = new Command('schedctl')
    .description('Book, route and reschedule meetings through the Scheduling and Workflow Trigger API')
    .version(versionLine(), '-v, --version', 'print the version, Node.js and platform')
    .addOption(
      new Option(
        '--json',
        'print one JSON document on stdout, for scripts (a --file run: JSON Lines, one per row then a summary)',
      ),
    )
    .addOption(new Option('--jq <expression>', 'filter the --json output with a jq expression (implies --json)'))
    .addOption(
      new Option('-p, --profile <name>', 'profile to use (default: SCHEDCTL_PROFILE, then the default profile)'),
    )
    .addOption(new Option('--base-url <url>', "API base URL (default: SCHEDCTL_BASE_URL, then the profile's)"))
    .addOption(new Option('--timeout <seconds>', 'per-request timeout in seconds (default: SCHEDCTL_TIMEOUT, then 30)'))
    .addOption(new Option('--debug', 'log each request and response to stderr (the key redacted)'))
    .addOption(new Option('--no-color', 'disable colors (NO_COLOR is honored too)'))
    .addOption(new Option('--no-input', 'never prompt; fail naming the flag instead (also SCHEDCTL_NO_INPUT=1)'))
    .addOption(new Option('-q, --quiet', 'print only results and errors'))
    .showSuggestionAfterError(true)
    .configureHelp(rootHelp())
    .exitOverride()
    .configureOutput({
      writeOut: (s) => ctx.io.stdout.write(s),
      // Commander's errors echo the argument they reject; a key given as one must not be printed back.
      writeErr,
    });

  // The global flags that take a value, from the program's own options (never a second list).
  const takesValue = new Set(
    program.options
      .filter((o) => o.required || o.optional)
      .flatMap((o) => [o.short, o.long].filter(Boolean) as string[]),
  );
  const sole =
    argv && soleCommand(argv, (name) => name === 'profile' || name === 'sandbox' || isExtraCommand(name), takesValue);
  const commands =
    sole === 'profile'
      ? [profileCommand(ctx)]
      : sole === 'sandbox'
        ? [sandboxCommand(ctx)]
        : sole
          ? extraCommands(ctx, sole)
          : [profileCommand(ctx), ...extraCommands(ctx), sandboxCommand(ctx), helpCommand(ctx)];
  for (const cmd of commands) program.addCommand(cmd);
  suggestFlagForCommand(program);
  applyRecursively(program, (cmd) => {
    cmd.exitOverride();
    cmd.configureOutput({
      writeOut: (s) => ctx.io.stdout.write(s),
      // Commander's errors echo the argument they reject; a key given as one must not be printed back.
      writeErr,
    });
    cmd.showSuggestionAfterError(true);
    // addCommand() does not pass help settings down. Each command's help names the global flags
    // once, compactly; `schedctl --help` describes them (src/commands/help-format.ts).
    cmd.configureHelp(commandHelp(program));
  });
  return program;
}

/**
 * `schedctl version`, `schedctl json`: a word that names a global flag gets that flag as its
 * suggestion ("did you mean --version?"), where commander compares it with the commands only.
 */
function suggestFlagForCommand(program: Command): void {
  const p = program as unknown as { unknownCommand(): void; args: string[] };
  const original = p.unknownCommand.bind(program);
  p.unknownCommand = () => {
    const word = p.args[0] ?? '';
    const flag = program.options.find((o) => o.long === `--${word.replace(/^-+/, '')}`)?.long;
    if (!flag) return original();
    program.error(`error: unknown command '${word}'\n(Did you mean ${flag}?)`, { code: 'commander.unknownCommand' });
  };
}

function applyRecursively(cmd: Command, fn: (c: Command) => void): void {
  for (const sub of cmd.commands) {
    fn(sub);
    applyRecursively(sub, fn);
  }
}

/** Runs the CLI and returns the exit code (bin/schedctl.js sets it; commands never call process.exit). */
export async function main(argv: string[], ctx: Context = createContext()): Promise<number> {
  // `--version --json`: one JSON document, like every other --json output.
  if (
    argv.includes('--json') &&
    argv.some((a) => a === '--version' || a === '-v') &&
    argv.every((a) => ['--json', '--version', '-v'].includes(a))
  ) {
    ctx.io.stdout.write(`${JSON.stringify(versionDocument())}\n`);
    return 0;
  }
  const program = buildProgram(ctx, argv);
  if (argv.length === 0) {
    program.outputHelp();
    return 0;
  }
  const stopWatching = exitOnInterrupt(ctx);
  const code = await runProgram(program, argv, ctx, stopWatching);
  // --jq: the filter's last results, once the command (and its error document) are written.
  const filtered = (await ctx.endOutput?.()) ?? true;
  return filtered || code !== 0 ? code : 1;
}

async function runProgram(program: Command, argv: string[], ctx: Context, stopWatching: () => void): Promise<number> {
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.exitCode === 0 || error.code === 'commander.helpDisplayed' || error.code === 'commander.version')
        return 0;
      if (scripted(argv) || quiet(argv)) {
        const doc = usageDocument(error.code === 'commander.help' ? missingCommand(program, argv) : error.message);
        if (scripted(argv)) ctx.io.stdout.write(`${JSON.stringify({ error: doc })}\n`);
        if (!quiet(argv)) ctx.io.stderr.write(`error: ${doc.message}${doc.hint ? ` (${doc.hint})` : ''}\n`);
      }
      return 2;
    }
    const [{ explainError, reportError }, { displayZoneOf }] = await Promise.all([
      import('./report.js'),
      import('./ui/human-times.js'),
    ]);
    return reportError(
      await explainError(error, ctx, argv),
      ctx,
      argv.includes('--json') || ctx.globals.json,
      displayZoneOf(argv),
    );
  } finally {
    stopWatching();
    await ctx.close?.().catch(() => {});
  }
}

/**
 * Commander's error as the JSON error document: its "(Did you mean reschedule?)" is a field of
 * its own (`suggestion`, with a hint), not a line inside the message.
 */
export function usageDocument(raw: string): { code: 'USAGE'; message: string; suggestion?: string; hint?: string } {
  const text = redactUrls(redactKeyLike(raw.replace(/^error: /, '').trim()));
  const m = /\s*\(Did you mean ([^?]+)\?\)$/.exec(text);
  if (!m) return { code: 'USAGE', message: text };
  // "one of list, ls": a command and its alias; the nearest known one is the first.
  const suggestion = m[1]!
    .trim()
    .replace(/^one of /, '')
    .split(', ')[0]!;
  return { code: 'USAGE', message: text.slice(0, m.index), suggestion, hint: `did you mean ${suggestion}?` };
}

const scripted = (argv: readonly string[]) =>
  argv.includes('--json') || argv.some((a) => a === '--jq' || a.startsWith('--jq='));
const quiet = (argv: readonly string[]) => argv.includes('-q') || argv.includes('--quiet');

/** A group named without one of its commands (`schedctl profile`): which, in words. */
function missingCommand(program: Command, argv: readonly string[]): string {
  let at = program;
  const words = ['schedctl'];
  for (const word of argv) {
    const sub = word.startsWith('-')
      ? undefined
      : at.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (sub) words.push((at = sub).name());
  }
  const path = words.join(' ');
  const names = at.commands.filter((c) => !(c as unknown as { _hidden?: boolean })._hidden).map((c) => c.name());
  return `missing command: ${path} <command>, one of ${names.join(', ')} (${path} --help)`;
}

/** Set on `process` by whoever handles SIGINT itself while it runs (the sandbox shuts down cleanly). */
const OWNS_SIGINT = Symbol.for('schedctl.ownsSigint');
/** What the command already did, set on `process` by the back (src/interrupt-note.ts). */
const INTERRUPT_NOTE = Symbol.for('schedctl.interruptNote');

/**
 * Ctrl-C during a command: exit 130 and print no error line (the person knows what they did).
 * A prompt's Ctrl-C arrives as ExitPromptError instead (report.ts stays silent for it too).
 * A listener is needed even though Node would end the process by itself: while a spinner runs,
 * ora reads the terminal raw and turns Ctrl-C into process.emit('SIGINT'), which without a
 * listener does nothing at all.
 */
function exitOnInterrupt(ctx: Context): () => void {
  const onInterrupt = () => {
    if ((process as unknown as Record<symbol, unknown>)[OWNS_SIGINT]) return;
    // Show the cursor a spinner hid, and end the line the terminal echoed ^C on.
    if (ctx.io.isStderrTTY) ctx.io.stderr.write('\x1b[?25h\n');
    // What the command already did (a fired trigger), and how to resume.
    const note = (process as unknown as Record<symbol, string | undefined>)[INTERRUPT_NOTE];
    if (note) ctx.io.stderr.write(`${note}\n`);
    process.exit(130);
  };
  process.on('SIGINT', onInterrupt);
  return () => process.off('SIGINT', onInterrupt);
}
