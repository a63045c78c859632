/**
 * A bulk file's cell and row are bounded (issue 44): a 20 MB cell is an invalid row (exit 2 naming
 * its line) before any booking is sent, read in chunks and dropped, never held whole.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEMO_TRIGGER } from '../helpers/args.js';
import { sent } from '../helpers/bulk-run.js';
import { show } from '../helpers/cli.js';
import { useSandbox } from '../helpers/sandbox.js';

const t = useSandbox();

describe('bulk input limits', () => {
  it('a 20 MB cell: exit 2 naming its line, nothing but the triggers list sent', async () => {
    const file = join(t.dir, 'leads.csv');
    const huge = 'x'.repeat(20 * 1024 * 1024);
    writeFileSync(
      file,
      `email,company,region,notes\nok@acme.example,Acme,emea,short\nbig@acme.example,Acme,emea,${huge}\n`,
    );
    const r = await t.sb.cli(['route', '--from', file, '--trigger', DEMO_TRIGGER, '--json'], { configDir: t.dir });
    expect(r.code, show(r)).toBe(2);
    expect(r.stdout + r.stderr).toMatch(/1 of 2 rows of .*leads\.csv are invalid: nothing was sent/);
    expect(r.stdout + r.stderr).toContain('line 3: field 4 is longer than 4096 characters');
    expect(sent(await t.sb.state())).toEqual(['GET /v1/triggers 200']);
    const jsonl = join(t.dir, 'leads.jsonl');
    writeFileSync(
      jsonl,
      `${JSON.stringify({ email: 'a@acme.example', company: 'Acme', region: 'emea', notes: 'x'.repeat(5000) })}\n`,
    );
    const j = await t.sb.cli(['route', '--from', jsonl, '--trigger', DEMO_TRIGGER], { configDir: t.dir });
    expect(j.code, show(j)).toBe(2);
    expect(j.stderr).toContain('line 1: "notes" is longer than 4096 characters');
  });
});
