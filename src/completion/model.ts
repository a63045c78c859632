/**
 * Pieces of the command model every generator shares: how a value kind is spelled inside
 * the scripts, and which positional arguments are worth a table entry.
 */
import type { CommandNode, ValueKind } from './tree.js';

/** The kind as the scripts pass it around: path, text, profiles, or "choices a b c". */
export function encodeKind(value: ValueKind): string {
  return value.kind === 'choices' ? ['choices', ...value.values].join(' ') : value.kind;
}

/** Flags that take a value, grouped by what they take (one table line per group). */
export function valueFlagGroups(node: CommandNode): Array<{ names: string[]; kind: string }> {
  const groups = new Map<string, string[]>();
  for (const flag of node.flags) {
    if (flag.value.kind === 'none') continue;
    const kind = encodeKind(flag.value);
    groups.set(kind, [...(groups.get(kind) ?? []), ...flag.names]);
  }
  return [...groups].map(([kind, names]) => ({ names, kind }));
}

/**
 * Positional arguments with something to offer, as [index pattern, kind]. '*' stands for
 * "this index and every later one" (a repeating last argument); plain text is left out
 * because the scripts already treat anything unlisted as free text.
 */
export function argEntries(node: CommandNode): Array<{ index: number | '*'; kind: string }> {
  const entries: Array<{ index: number | '*'; kind: string }> = [];
  node.args.forEach((arg, index) => {
    if (arg.kind !== 'text') entries.push({ index, kind: encodeKind(arg) });
  });
  const last = node.args.at(-1);
  if (node.variadic && last && last.kind !== 'text') {
    // Every earlier index needs its own entry so that the catch-all only catches later ones.
    node.args.forEach((arg, index) => {
      if (arg.kind === 'text') entries.push({ index, kind: 'text' });
    });
    entries.push({ index: '*', kind: encodeKind(last) });
  }
  return entries;
}

/** All spellings of the subcommands of a node (aliases included), each with its target path. */
export function subcommandWords(node: CommandNode): Array<{ word: string; target: string; description: string }> {
  return node.subcommands.flatMap((sub) =>
    [sub.name, ...sub.aliases].map((word) => ({
      word,
      target: node.path ? `${node.path} ${sub.name}` : sub.name,
      description: sub.description,
    })),
  );
}
