/**
 * How help reads, modelled on gh: "Flags:" rather than commander's "Options:"; a command's
 * help lists its own flags and names the global ones once, compactly ("Global flags: --json,
 * -p/--profile <name>, …"), where commander's showGlobalOptions would repeat ten described
 * lines under every command; `schedctl --help` describes them in full and lists the help
 * topics. Pure string work on the command tree: --help loads nothing more.
 */
import { existsSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { type Command, Help, type HelpConfiguration, type Option } from 'commander';
import { HELP_TOPICS } from './help.js';

const retitle = (title: string): string => (title === 'Options:' ? 'Flags:' : title);
const flagsWord = (usage: string): string => usage.replace('[options]', '[flags]');

/** What every command's help shares: gh's words ("Flags:", "[flags]"). */
const wording = {
  styleTitle: retitle,
  commandUsage(this: Help, cmd: Command): string {
    return flagsWord(Help.prototype.commandUsage.call(this, cmd));
  },
  subcommandTerm(this: Help, cmd: Command): string {
    return flagsWord(Help.prototype.subcommandTerm.call(this, cmd));
  },
};

/** Help settings for the program itself: every flag described, then the topics and where to learn more. */
export function rootHelp(): HelpConfiguration {
  return {
    sortSubcommands: false,
    ...wording,
    formatHelp(this: Help, cmd: Command, helper: Help): string {
      const width = Math.max(...HELP_TOPICS.map(([name]) => name.length));
      return [
        Help.prototype.formatHelp.call(this, cmd, helper),
        'Help topics:',
        ...HELP_TOPICS.map(([name, summary]) => `  ${name.padEnd(width)}  ${summary}`),
        '',
        'Learn more:',
        "  Use `schedctl <command> --help` (or `schedctl help <command>`) for a command's flags.",
        '  Use `schedctl help <topic>` for a topic; the README has recipes for common tasks, and',
        '  the manual (every command, flag, variable and exit code) ships with schedctl:',
        `  ${manualPath()}`,
        '  (docs/… named in any help or message is a page of it, beside that README.md).',
        '',
      ].join('\n');
    },
  };
}

/** Help settings for every other command: its own flags, then the global ones on a line or two. */
export function commandHelp(program: Command): HelpConfiguration {
  const words = globalFlagWords(program);
  return {
    ...wording,
    formatHelp(this: Help, cmd: Command, helper: Help): string {
      return `${Help.prototype.formatHelp.call(this, cmd, helper)}\n${wrap(words, helper.helpWidth ?? 80).join('\n')}\n`;
    },
  };
}

/**
 * `Global flags: --json, -p/--profile <name>, … (see schedctl help)`, from the program's own
 * options, as the units a line may break between (never inside `--timeout <s>`); two lines at 80 columns.
 */
export function globalFlagWords(program: Command): string[] {
  const flags = program.options
    .filter((o: Option) => !o.hidden && o.long !== '--version' && o.long !== '--help')
    .map((o: Option) => o.flags.replace(/^(-\w), (--)/, '$1/$2').replace('<seconds>', '<s>'));
  return ['Global flags:', ...flags.map((f, i) => (i < flags.length - 1 ? `${f},` : f)), '(see schedctl help)'];
}

function wrap(words: string[], width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of words) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = `  ${word}`;
    } else {
      line = line ? `${line} ${word}` : word;
    }
  }
  return [...lines, line];
}

/**
 * The manual's index as installed: docs/README.md beside bin/ (the package ships docs/), found
 * through the link npm puts on PATH; `docs/README.md` when it is not there (a bundle run elsewhere).
 */
export function manualPath(bin = process.argv[1]): string {
  try {
    const readme = join(dirname(realpathSync(bin ?? '')), '..', 'docs', 'README.md');
    if (existsSync(readme)) return readme;
  } catch {
    // No bin to start from: the relative name below.
  }
  return 'docs/README.md';
}
