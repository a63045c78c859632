import type { Command } from 'commander';

/**
 * `trigger ls`, `triggers fire`: a word that is a command of the other spelling is suggested
 * there ("did you mean triggers ls?"), where commander compares it with this group's only.
 */
export function suggestSibling(group: Command, sibling: string, words: Record<string, string>): Command {
  const g = group as unknown as { unknownCommand(): void; args: string[] };
  const original = g.unknownCommand.bind(group);
  g.unknownCommand = () => {
    const word = g.args[0] ?? '';
    const there = Object.hasOwn(words, word) ? words[word] : undefined;
    if (!there) return original();
    group.error(`error: unknown command '${word}'\n(Did you mean ${sibling} ${there}?)`, {
      code: 'commander.unknownCommand',
    });
  };
  return group;
}
