/**
 * What a command has already done, said when Ctrl-C stops it (exit 130): a person who stops the
 * route wizard after its trigger fired learns that a workflow run exists and how to resume.
 * One note per process (a CLI run is one command), cleared when the command ends. Kept on
 * `process` under a registered symbol: the front (src/cli.ts, which answers SIGINT) reads it
 * without importing this back-side module (the bundle's front/back rule).
 */
export const INTERRUPT_NOTE = Symbol.for('schedctl.interruptNote');

type WithNote = { [INTERRUPT_NOTE]?: string | undefined };

export function setInterruptNote(text: string | undefined): void {
  (process as WithNote)[INTERRUPT_NOTE] = text;
}

export function interruptNote(): string | undefined {
  return (process as WithNote)[INTERRUPT_NOTE];
}
