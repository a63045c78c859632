/**
 * `schedctl help [command...]`, like `gh help`: with no words the program's help, with a
 * command path that command's help (answered here, in the front, as fast as `--help`), with a
 * topic name the topic (printed by src/run/help.ts from src/help/, where the manual's tables
 * come from too). Replaces commander's implicit help command, which only knew one word.
 */
import { Command } from 'commander';
import type { Context } from '../context.js';
import { runs } from './action.js';

/** The topics of src/help/, as `schedctl --help` lists them (test/e2e/help.test.ts keeps the two in step). */
export const HELP_TOPICS: ReadonlyArray<readonly [name: string, summary: string]> = [
  ['environment', 'environment variables schedctl reads, and which flag wins over each'],
  ['exit-codes', 'what each exit status means (stable: scripts may rely on them)'],
  ['formatting', 'the --json output of every command'],
];

export function helpCommand(ctx: Context): Command {
  return new Command('help')
    .description(`show help for a command, or a help topic: ${HELP_TOPICS.map(([name]) => name).join(', ')}`)
    .argument('[command...]', 'a command (e.g. `triggers ls`) or a topic')
    .addHelpText('after', `\nExamples:\n  schedctl help route\n  schedctl help triggers ls\n  schedctl help exit-codes`)
    .action(async (words: string[], options: unknown, cmd: Command) => {
      const root = cmd.parent ?? cmd;
      if (words.length === 0) {
        root.outputHelp();
        return;
      }
      if (words.length === 1 && HELP_TOPICS.some(([name]) => name === words[0])) {
        await runs(ctx, 'help')(words, options, cmd);
        return;
      }
      let target = root;
      for (const word of words) {
        const next = target.commands.find((c) => c.name() === word || c.aliases().includes(word));
        if (!next) {
          const known =
            target === root
              ? `commands: see \`schedctl --help\`; topics: ${HELP_TOPICS.map(([n]) => n).join(', ')}`
              : `see \`schedctl help ${words.slice(0, words.indexOf(word)).join(' ')}\``;
          cmd.error(`error: unknown command or help topic "${words.join(' ')}" (${known})`, {
            exitCode: 2,
            code: 'schedctl.unknownHelpTopic',
          });
        }
        target = next;
      }
      target.outputHelp();
    });
}
