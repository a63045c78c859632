/**
 * Whose clock (shared/ledger-rules.md): the server's decides whether a meeting is over. The pure
 * rule (domain/server-clock.ts), the time on record per API (config/server-time.ts) and one
 * command's hearing of it (api/server-clock.ts).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ServerClock } from '../../src/api/server-clock.js';
import { lastServerTime, recordServerTime, serverTimePath } from '../../src/config/server-time.js';
import {
  describeSkew,
  formatDuration,
  ledgerNow,
  SKEW_REPORT_MS,
  skewNotice,
  skewWorthReporting,
} from '../../src/domain/server-clock.js';

const T = Date.parse('2031-03-03T08:00:00Z');
const DAY = 86_400_000;
const local = new Date(T);

describe('ledgerNow: a meeting is over only when both clocks say so', () => {
  it('is the earlier of this clock and the server time heard in this command', () => {
    expect(ledgerNow({ local, skewMs: -DAY }).getTime()).toBe(T - DAY);
    // A server ahead (by mistake or on purpose) is outvoted by this clock: it frees no lead.
    expect(ledgerNow({ local, skewMs: DAY }).getTime()).toBe(T);
    expect(ledgerNow({ local, skewMs: 400 * DAY }).getTime()).toBe(T);
    expect(ledgerNow({ local, skewMs: Date.parse('9999-12-31T23:59:59Z') - T }).getTime()).toBe(T);
    expect(ledgerNow({ local, skewMs: 1 }).getTime()).toBe(T);
    expect(ledgerNow({ local, skewMs: -1 }).getTime()).toBe(T - 1);
    expect(ledgerNow({ local, skewMs: 0, lastServerMs: T - 5 * DAY }).getTime()).toBe(T);
    expect(ledgerNow({ local, skewMs: -DAY, lastServerMs: T + DAY }).getTime()).toBe(T - DAY);
  });
  it('before that, is the earlier of this clock and the last server time on record', () => {
    expect(ledgerNow({ local, lastServerMs: T - DAY }).getTime()).toBe(T - DAY);
    expect(ledgerNow({ local, lastServerMs: T + DAY }).getTime()).toBe(T);
    expect(ledgerNow({ local, lastServerMs: T }).getTime()).toBe(T);
  });
  it('is this clock with nothing else known, or nothing readable', () => {
    expect(ledgerNow({ local }).getTime()).toBe(T);
    expect(ledgerNow({ local, skewMs: Number.NaN, lastServerMs: T - DAY }).getTime()).toBe(T - DAY);
    expect(ledgerNow({ local, lastServerMs: Number.NaN }).getTime()).toBe(T);
    expect(ledgerNow({ local, skewMs: Number.POSITIVE_INFINITY }).getTime()).toBe(T);
  });
  it('returns a new Date, never the local one', () => {
    expect(ledgerNow({ local })).not.toBe(local);
  });
  it('keeps a meeting of tomorrow upcoming when this clock runs a day ahead', () => {
    const tomorrow = T + DAY - 60_000;
    const aheadLocal = new Date(T + DAY);
    expect(ledgerNow({ local: aheadLocal, lastServerMs: T }).getTime()).toBeLessThan(tomorrow);
    expect(ledgerNow({ local: aheadLocal, skewMs: -DAY }).getTime()).toBeLessThan(tomorrow);
  });
});

describe('skew reports', () => {
  it('reports more than a minute either way, not a minute', () => {
    expect(SKEW_REPORT_MS).toBe(60_000);
    expect(skewWorthReporting(60_000)).toBe(false);
    expect(skewWorthReporting(-60_000)).toBe(false);
    expect(skewWorthReporting(60_001)).toBe(true);
    expect(skewWorthReporting(-60_001)).toBe(true);
    expect(skewWorthReporting(0)).toBe(false);
  });
  it('formats a duration in its two largest units', () => {
    expect(formatDuration(0)).toBe('0 s');
    expect(formatDuration(400)).toBe('0 s');
    expect(formatDuration(59_000)).toBe('59 s');
    expect(formatDuration(61_000)).toBe('1 min 1 s');
    expect(formatDuration(-61_000)).toBe('1 min 1 s');
    expect(formatDuration(3_600_000)).toBe('1 h');
    expect(formatDuration(3_660_000)).toBe('1 h 1 min');
    expect(formatDuration(3_661_000)).toBe('1 h 1 min');
    expect(formatDuration(DAY + 2 * 3_600_000 + 5_000)).toBe('1 d 2 h');
    expect(formatDuration(2 * DAY + 60_000)).toBe('2 d');
    expect(formatDuration(DAY)).toBe('1 d');
  });
  it('says which way this clock is off, and by how much', () => {
    const ahead = skewNotice(T, T + DAY);
    expect(ahead).toEqual({
      serverTime: '2031-03-03T08:00:00.000Z',
      localTime: '2031-03-04T08:00:00.000Z',
      aheadSeconds: 86_400,
    });
    expect(describeSkew(ahead, 'https://api.example.com')).toBe(
      "this machine's clock is 1 d ahead of the server's (https://api.example.com says 2031-03-03T08:00:00.000Z); a meeting counts as over only when both clocks say so",
    );
    expect(describeSkew(skewNotice(T, T), 'x')).toContain("clock is 0 s behind the server's");
    const behind = skewNotice(T + 90_400, T);
    expect(behind.aheadSeconds).toBe(-90);
    expect(describeSkew(behind, 'x')).toContain("clock is 1 min 30 s behind the server's (x says");
  });
});

describe('the last server time on record, per API', () => {
  const dirs: string[] = [];
  const dir = () => {
    const d = mkdtempSync(join(tmpdir(), 'schedctl-server-time-'));
    dirs.push(d);
    return d;
  };
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it('is none at first, then the latest recorded, per normalised API', async () => {
    const d = dir();
    expect(lastServerTime(d, 'http://127.0.0.1:4010')).toBeUndefined();
    await recordServerTime(d, 'http://127.0.0.1:4010', T);
    expect(lastServerTime(d, 'http://localhost:4010/')).toBe(T);
    expect(lastServerTime(d, 'https://api.example.com')).toBeUndefined();
    await recordServerTime(d, 'http://localhost:4010', T - DAY);
    expect(lastServerTime(d, 'http://127.0.0.1:4010')).toBe(T);
    await recordServerTime(d, 'http://localhost:4010', T + 1000);
    expect(lastServerTime(d, 'http://127.0.0.1:4010')).toBe(T + 1000);
    await recordServerTime(d, 'https://api.example.com', T - DAY);
    expect(JSON.parse(readFileSync(serverTimePath(d), 'utf8'))).toEqual({
      apis: {
        'http://loopback:4010': '2031-03-03T08:00:01.000Z',
        'https://api.example.com': '2031-03-02T08:00:00.000Z',
      },
    });
  });
  it('reads a damaged file as no time on record, and replaces it on the next write', async () => {
    const d = dir();
    for (const text of ['{not json', 'null', '{"apis": []}', '{"apis": 3}', '{"apis": {"http://loopback:4010": 5}}']) {
      writeFileSync(serverTimePath(d), text);
      expect(lastServerTime(d, 'http://127.0.0.1:4010')).toBeUndefined();
    }
    writeFileSync(
      serverTimePath(d),
      '{"apis": {"http://loopback:4010": "soon", "https://a.example": "2031-03-03T08:00:00Z"}}',
    );
    expect(lastServerTime(d, 'http://127.0.0.1:4010')).toBeUndefined();
    expect(lastServerTime(d, 'https://a.example')).toBe(T);
    await recordServerTime(d, 'http://127.0.0.1:4010', T);
    expect(lastServerTime(d, 'http://127.0.0.1:4010')).toBe(T);
    expect(lastServerTime(d, 'https://a.example')).toBe(T);
  });
});

describe('ServerClock: one command hearing the server', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  function clock(localMs: number) {
    const d = mkdtempSync(join(tmpdir(), 'schedctl-server-clock-'));
    dirs.push(d);
    const reports: string[] = [];
    const c = new ServerClock({ dir: () => d, localNow: () => new Date(localMs), report: (l) => reports.push(l) });
    return { c, d, reports };
  }
  const API = 'http://127.0.0.1:4010';

  it('judges by the record until it hears the server, then by the server', async () => {
    const { c, d } = clock(T + DAY);
    expect(c.heard(API)).toBe(false);
    expect(c.ledgerNow(API).getTime()).toBe(T + DAY);
    await recordServerTime(d, API, T);
    expect(c.reading(API)).toEqual({ local: new Date(T + DAY), lastServerMs: T });
    expect(c.ledgerNow(API).getTime()).toBe(T);
    c.observe(API, T + 5000);
    expect(c.heard('http://localhost:4010')).toBe(true);
    expect(c.heard('https://other.example')).toBe(false);
    expect(c.reading(API)).toEqual({ local: new Date(T + DAY), skewMs: 5000 - DAY });
    expect(c.ledgerNow(API).getTime()).toBe(T + 5000);
    await c.settled();
    // Within a minute of the time on record, nothing is written (most commands write nothing).
    expect(lastServerTime(d, API)).toBe(T);
    c.observe(API, T + 60_000);
    await c.settled();
    expect(lastServerTime(d, API)).toBe(T + 60_000);
  });
  it('reports a skew of more than a minute once, and keeps the first as the notice', async () => {
    const { c, reports } = clock(T);
    c.observe(API, T + 60_000);
    expect(reports).toEqual([]);
    expect(c.notice).toBeUndefined();
    c.observe(API, T - 2 * 60_000);
    c.observe(API, T - DAY);
    expect(reports).toHaveLength(1);
    expect(reports[0]).toContain(`clock is 2 min ahead of the server's (${API} says`);
    expect(c.notice).toEqual(skewNotice(T - 2 * 60_000, T));
    await c.settled();
  });
  it('writes the time down on first hearing, then once it has moved a minute on', async () => {
    const { c, d } = clock(T);
    c.observe(API, T);
    await c.settled();
    expect(lastServerTime(d, API)).toBe(T);
    c.observe(API, T + 59_999);
    await c.settled();
    expect(lastServerTime(d, API)).toBe(T);
    c.observe(API, T + 60_000);
    await c.settled();
    expect(lastServerTime(d, API)).toBe(T + 60_000);
    c.observe('https://other.example', T - DAY);
    await c.settled();
    expect(lastServerTime(d, 'https://other.example')).toBe(T - DAY);
  });
  it('never fails a command over a time it could not write down', async () => {
    const debug: string[] = [];
    const file = join(mkdtempSync(join(tmpdir(), 'schedctl-server-clock-')), 'a-file');
    dirs.push(join(file, '..'));
    writeFileSync(file, '');
    const c = new ServerClock({
      // A directory that cannot be made: a file stands where it would be.
      dir: () => join(file, 'config'),
      localNow: () => new Date(T),
      report: () => {},
      debug: (l) => debug.push(l),
    });
    c.observe(API, T);
    await c.settled();
    expect(debug[0]).toMatch(/^the server's time was not recorded: /);
    expect(c.ledgerNow(API).getTime()).toBe(T);
  });
});
