import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseSmokeFlags } from '../../src/run/smoke/options.js';

describe('smoke flags', () => {
  it('accepts a full routed run', () => {
    const dir = mkdtempSync(join(tmpdir(), 'smoke-'));
    expect(
      parseSmokeFlags({
        trigger: 'Demo',
        email: 'qa@acme.com',
        field: ['company=A=B'],
        book: true,
        maxLatency: '1500',
        junit: join(dir, 'r.xml'),
      }),
    ).toEqual({
      book: true,
      email: 'qa@acme.com',
      trigger: { ref: 'Demo', email: 'qa@acme.com', fields: { company: 'A=B' } },
      maxLatencyMs: 1500,
      junit: join(dir, 'r.xml'),
    });
  });

  it.each([
    [{ trigger: 'Demo' }, /--trigger needs --email/],
    [{ book: true }, /--book needs --email/],
    [{ field: ['a=b'] }, /--field only applies with --trigger/],
    [{ trigger: 'Demo', email: 'qa@acme.com', field: ['nokey'] }, /invalid --field "nokey"/],
    [{ email: 'not-an-email' }, /invalid --email/],
    [{ maxLatency: '0' }, /invalid --max-latency "0"/],
    [{ maxLatency: '2s' }, /invalid --max-latency "2s"/],
    [{ junit: '/no/such/folder/smoke.xml' }, /invalid --junit .*does not exist/],
    [{ junit: tmpdir() }, /it is a folder/],
  ])('rejects %o naming the flag', (flags, message) => {
    expect(() => parseSmokeFlags(flags)).toThrow(message);
  });
});

describe('smoke --event: the path segment check', () => {
  it('refuses "." and ".." before any check runs, naming --event', () => {
    for (const event of ['.', '..'])
      expect(() => parseSmokeFlags({ event })).toThrow(
        `invalid --event "${event}": an id of "${event}" would name another endpoint`,
      );
  });
});
