import Table from 'cli-table3';

/** A borderless table for stdout; plain (no color codes) when colors are off. */
export function renderTable(head: string[], rows: Array<Array<string | number>>, opts: { color: boolean }): string {
  const table = new Table({
    head,
    style: { head: opts.color ? ['bold'] : [], border: [], compact: true, 'padding-left': 0, 'padding-right': 2 },
    chars: {
      top: '', 'top-mid': '', 'top-left': '', 'top-right': '',
      bottom: '', 'bottom-mid': '', 'bottom-left': '', 'bottom-right': '',
      left: '', 'left-mid': '', mid: '', 'mid-mid': '',
      right: '', 'right-mid': '', middle: '',
    },
  });
  for (const row of rows) table.push(row.map(String));
  return table.toString().split('\n').map((l) => l.trimEnd()).join('\n');
}
