/**
 * What a lock's holder record says it is doing: the command (`schedctl route`, `schedctl state
 * unlock`) and the names of the options it was given (`--file`, `--json`), never their values
 * nor its arguments. Every reader of the team database (and of a lock directory) sees the record,
 * and the values of a booking are a lead's form answers, email and phone number: personal data
 * the record has no need of (the lock's subject already says which lead or meeting it is).
 * Set when the command opens its state (services.ts), from what its action noted (commands/action.ts).
 */
let current: string | undefined;

/** `path`: the command's names from the top (`['route']`, `['state', 'unlock']`); `known`: its option names. */
export function setHolderCommand(path: readonly string[], argv: readonly string[], known: ReadonlySet<string>): void {
  const flags: string[] = [];
  for (const token of argv) {
    if (token === '--') break;
    // `--file=x` and `--file x` alike: the name only, and only a name the command declares.
    const name = /^--?[A-Za-z][\w-]*/.exec(token)?.[0];
    if (name && known.has(name) && !flags.includes(name)) flags.push(name);
  }
  current = ['schedctl', ...path, ...flags].join(' ');
}

/** The holder's command, as set by its action; `schedctl` alone outside one (never the raw arguments). */
export function holderCommand(): string {
  return current ?? 'schedctl';
}
