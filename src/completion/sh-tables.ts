/**
 * The lookup functions bash and zsh share (both read the same `case` syntax). Each sets
 * the caller's local `r` instead of printing, so walking the command line forks nothing:
 * completion has to feel instant.
 */
import { argEntries, subcommandWords, valueFlagGroups } from './model.js';
import { shQuote } from './quote.js';
import type { CommandNode } from './tree.js';

const pattern = (words: string[]) => words.map(shQuote).join('|');

export function shTables(fn: string, nodes: CommandNode[]): string {
  const sub = nodes.flatMap((node) => {
    const byTarget = new Map<string, string[]>();
    for (const { word, target } of subcommandWords(node)) byTarget.set(target, [...(byTarget.get(target) ?? []), word]);
    return [...byTarget].map(
      ([target, words]) => `    ${pattern(words.map((w) => `${node.path}/${w}`))}) r=${shQuote(target)} ;;`,
    );
  });
  // Most commands take only the global flags: they share the root's entry (the default branch).
  const rootGroups = JSON.stringify(valueFlagGroups(rootOf(nodes)));
  const flagCase = (node: CommandNode, indent: string) => [
    `${indent}case "$2" in`,
    ...valueFlagGroups(node).map((g) => `${indent}  ${pattern(g.names)}) r=${shQuote(g.kind)} ;;`),
    `${indent}  *) return 1 ;;`,
    `${indent}esac ;;`,
  ];
  const value = nodes
    .filter((node) => node.path !== '' && JSON.stringify(valueFlagGroups(node)) !== rootGroups)
    .flatMap((node) => [`    ${shQuote(node.path)})`, ...flagCase(node, '      ')]);
  const arg = nodes.flatMap((node) =>
    argEntries(node).map(({ index, kind }) =>
      index === '*'
        ? `    ${shQuote(`${node.path}/`)}*) r=${shQuote(kind)} ;;`
        : `    ${shQuote(`${node.path}/${index}`)}) r=${shQuote(kind)} ;;`,
    ),
  );
  return [
    `# ${fn}_sub PATH WORD: r = the command path WORD leads to from PATH; fails when WORD is no subcommand there.`,
    `${fn}_sub() {`,
    '  case "$1/$2" in',
    ...sub,
    '    *) return 1 ;;',
    '  esac',
    '}',
    '',
    `# ${fn}_value PATH FLAG: r = what FLAG takes at PATH (path, text, profiles, "choices A B"); fails for a flag without a value.`,
    `${fn}_value() {`,
    '  case "$1" in',
    ...value,
    '    *)',
    ...flagCase(rootOf(nodes), '      '),
    '  esac',
    '}',
    '',
    `# ${fn}_arg PATH N: r = what positional argument N (from 0) of PATH takes.`,
    `${fn}_arg() {`,
    '  case "$1/$2" in',
    ...arg,
    "    *) r='text' ;;",
    '  esac',
    '}',
  ].join('\n');
}

/** The root command's node: commandNodes() lists it first. */
function rootOf(nodes: CommandNode[]): CommandNode {
  const [root] = nodes;
  if (!root) throw new Error('completion: the command tree is empty');
  return root;
}
