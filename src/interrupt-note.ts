/**
 * What a command has already done, said when Ctrl-C stops it (exit 130): a person who stops the
 * route wizard after its trigger fired learns that a workflow run exists and how to resume.
 * One note per process (a CLI run is one command); cleared when the command ends.
 */
let note: string | undefined;

export function setInterruptNote(text: string | undefined): void {
  note = text;
}

export function interruptNote(): string | undefined {
  return note;
}
