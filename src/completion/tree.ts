/**
 * Reads the commander command tree into a flat, shell-neutral model that the bash, zsh
 * and fish generators turn into scripts. Built at run time from the real program, so the
 * completions can never list a command or flag that does not exist (or miss one).
 */
import type { Argument, Command, Option } from 'commander';
import { TOPICS } from '../help/topics.js';

/** `schedctl help <topic>`: completed beside the command names. */
const HELP_TOPIC_NAMES = TOPICS.map((t) => t.name);

/** What a flag or positional argument accepts, as far as completion can know it. */
export type ValueKind =
  | { kind: 'none' } // a flag without a value
  | { kind: 'path' } // any text: let the shell offer file names (e.g. --data @FILE, --state FILE)
  | { kind: 'text' } // any text, nothing sensible to offer (an id, a new name)
  | { kind: 'choices'; values: string[] } // commander .choices([...])
  | { kind: 'profiles' }; // names from the local config, via `<the same binary> completion __complete profiles`

export interface FlagSpec {
  /** Short and/or long spellings, e.g. ['-p', '--profile']. */
  names: string[];
  description: string;
  value: ValueKind;
}

export interface SubcommandRef {
  name: string;
  aliases: string[];
  description: string;
}

export interface CommandNode {
  /** Space-separated names from the root ('' for the root itself, 'profile use'). */
  path: string;
  subcommands: SubcommandRef[];
  /** The command's own flags and the ones inherited from its ancestors (global flags work anywhere). */
  flags: FlagSpec[];
  args: ValueKind[];
  /** The last positional argument repeats. */
  variadic: boolean;
}

/**
 * Values completion reads from the local config instead of the command tree: commander has
 * no place to attach "this is a profile name", so the few such spots are listed here.
 */
const PROFILE_FLAGS = new Set(['--profile']);
const PROFILE_ARGS = new Set(['profile use', 'profile rm', 'profile show']);

/** Every visible command, depth first, in the order `--help` lists them. */
export function commandNodes(root: Command): CommandNode[] {
  const nodes: CommandNode[] = [];
  const visit = (cmd: Command, parent: Command | undefined, path: string[], inherited: FlagSpec[]) => {
    const help = cmd.createHelp();
    const visible = help.visibleCommands(cmd);
    const own = help.visibleOptions(cmd).map(flagSpec);
    const flags = [...own, ...inherited.filter((f) => !f.names.some((n) => own.some((o) => o.names.includes(n))))];
    const key = path.join(' ');
    nodes.push({
      path: key,
      subcommands: visible.map((sub) => ({
        name: sub.name(),
        aliases: sub.aliases(),
        description: firstLine(sub.description()),
      })),
      flags,
      args: cmd.registeredArguments.map((arg) => argKind(arg, key, cmd, parent)),
      variadic: cmd.registeredArguments.at(-1)?.variadic ?? false,
    });
    // Subcommands get their own -h; --version means nothing below the root.
    const passDown = flags.filter((f) => !f.names.includes('--help') && !f.names.includes('--version'));
    for (const sub of visible) visit(sub, cmd, [...path, sub.name()], passDown);
  };
  visit(root, undefined, [], []);
  return nodes;
}

function flagSpec(option: Option): FlagSpec {
  const names = [option.short, option.long].filter((n): n is string => Boolean(n));
  let value: ValueKind = { kind: 'none' };
  if (option.required || option.optional) {
    if (option.argChoices) value = { kind: 'choices', values: [...option.argChoices] };
    else if (option.long && PROFILE_FLAGS.has(option.long)) value = { kind: 'profiles' };
    // Offer file names only where the value can be one (<file>, <json> which takes @FILE): for
    // an id or an email the shell's file list would just be noise.
    else value = /file|path|dir|json/i.test(option.flags.replace(/^[^<[]*/, '')) ? { kind: 'path' } : { kind: 'text' };
  }
  return { names, description: firstLine(option.description), value };
}

function argKind(arg: Argument, path: string, cmd: Command, parent: Command | undefined): ValueKind {
  if (arg.argChoices) return { kind: 'choices', values: [...arg.argChoices] };
  if (PROFILE_ARGS.has(path) && cmd.registeredArguments[0] === arg) return { kind: 'profiles' };
  // commander's implicit `help [command]` (which has no .parent): offer the commands it can explain.
  if (cmd.name() === 'help' && arg.name() === 'command' && parent) {
    const names = parent
      .createHelp()
      .visibleCommands(parent)
      .map((c) => c.name())
      .filter((n) => n !== 'help');
    return { kind: 'choices', values: [...names, ...HELP_TOPIC_NAMES] };
  }
  return { kind: 'text' };
}

function firstLine(text: string): string {
  return (text.split('\n')[0] ?? '').trim();
}
