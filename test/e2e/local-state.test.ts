/**
 * Broken files and odd config directories: a damaged local file is reported naming it (exit 1,
 * never "a bug"), never overwritten, and nothing is sent; a directory that cannot be written
 * still serves reads, while commands that must write refuse before any request; a shared
 * directory keeps its mode.
 */
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { demoFireArgs, demoRouteFirstArgs } from '../helpers/args.js';
import { show, tempDir } from '../helpers/cli.js';
import { useSandbox } from '../helpers/sandbox.js';

const t = useSandbox();
const cli = (args: string[], configDir = t.dir) => t.sb.cli(args, { configDir });

describe('a damaged local file', () => {
  for (const [file, text] of [
    ['journal.json', '{"entries": [{"id": "x", '],
    ['outcomes.json', '[]'],
    ['meetings.json', ''],
    ['config.json', '{"profiles": {"p": {"baseUrl": 5}}}'],
  ] as const) {
    it(`${file} (${text === '' ? 'empty' : 'broken'}): exit 1 naming the file and what to do; unchanged; nothing sent`, async () => {
      const path = join(t.dir, file);
      writeFileSync(path, text, { mode: 0o600 });
      const before = await t.sb.requestCount();
      // The commands that read it: book (journal, meetings), trigger fire (outcomes), anything (profiles).
      const args =
        file === 'outcomes.json'
          ? [...demoFireArgs(), '--json']
          : file === 'config.json'
            ? ['triggers', 'ls', '--json']
            : ['meetings', 'ls', '--json'];
      const r = await cli(args);
      expect(r.code, show(r)).toBe(1);
      const { error } = r.json();
      expect(error.code).toBe('STATE_FILE');
      expect(error.message).toContain(path);
      expect(`${error.message} ${error.hint ?? ''}`).toMatch(/move it aside/);
      expect(r.stderr).not.toContain('bug');
      expect(readFileSync(path, 'utf8')).toBe(text);
      // A fire never goes out: at most the trigger list was read to check the fields.
      const sent = (await t.sb.state()).requests.slice(before).map((q) => `${q.method} ${q.path}`);
      expect(sent.filter((q) => q.startsWith('POST'))).toEqual([]);
    });
  }
});

describe('a config directory that cannot be written', () => {
  // A path below a regular file can never be a directory (root ignores permission bits).
  const unusable = () => {
    const base = tempDir();
    writeFileSync(join(base, 'not-a-dir'), '');
    return join(base, 'not-a-dir', 'schedctl');
  };

  it('reads with the key from SCHEDCTL_API_KEY still work', async () => {
    const r = await cli(['triggers', 'ls', '--json'], unusable());
    expect(r.code, show(r)).toBe(0);
    expect(r.json().triggers.length).toBeGreaterThan(0);
  });

  it('a fire and a booking refuse before any request, naming the directory', async () => {
    const dir = unusable();
    const before = await t.sb.requestCount();
    const fire = await cli([...demoFireArgs(), '--json'], dir);
    expect(fire.code, show(fire)).toBe(1);
    expect(fire.json().error).toMatchObject({ code: 'STATE_WRITE', message: expect.stringContaining(dir) });
    const route = await cli([...demoRouteFirstArgs(), '--json'], dir);
    expect(route.code, show(route)).toBe(1);
    expect(route.json().error.code).toBe('STATE_WRITE');
    const sent = (await t.sb.state()).requests.slice(before);
    expect(sent.filter((q) => q.method === 'POST')).toEqual([]);
  });
});

describe('a full disk mid-command', () => {
  // A disk that fills up, as a file size limit (RLIMIT_FSIZE: a write past it fails with EFBIG,
  // which SQLite reports as an I/O error, as it does ENOSPC's SQLITE_FULL: both STATE_WRITE).
  // Each route of a new lead runs with a larger limit (every file alike: the database, its
  // write-ahead log and shared memory), so each stops at a different write: before the fire,
  // between the fire and the booking, or not at all. Every run ends booked or with STATE_WRITE naming the
  // database; nothing sent goes unrecorded: re-run with room, every lead ends with one meeting,
  // and one fire unless a fire's answer could not be written (then the re-run says so).
  // No vitest timeout: the sweep is a bounded number of CLI runs (the limits up to the database's
  // size + 256 KiB, then one re-run each), each bounded by the CLI helper's own (scaled) timeout,
  // so it ends on any machine; its length is CLI starts, ~25 of them (10.7 s alone at load 1.4).
  it(
    'stops each step cleanly (exit 1, STATE_WRITE naming the ledger); a re-run completes each lead once',
    { timeout: 0 },
    async () => {
      const dir = tempDir();
      expect((await cli(demoRouteFirstArgs('first@disk.example'), dir)).code).toBe(0);
      const db = join(dir, 'ledger.db');
      const kb = Math.ceil(statSync(db).size / 1024);
      const leads: { email: string; code: number | null; sent: string[] }[] = [];
      // Room for little (the first write fails), then from 40 KiB (the write-ahead log's shared
      // memory alone is 32 KiB) up in steps of 12 KiB until a route completes: each write of a
      // route (the fire marked sent, its answer, the booking's) meets the limit at some step.
      for (let limit = 16; leads.at(-1)?.code !== 0 && limit <= kb + 256; limit = limit < 40 ? 40 : limit + 12) {
        const email = `full${limit}@disk.example`;
        const before = await t.sb.requestCount();
        const r = await t.sb.cli([...demoRouteFirstArgs(email), '--json'], { configDir: dir, fileSizeLimitKb: limit });
        const sent = (await t.sb.state()).requests
          .slice(before)
          .filter((q) => q.method === 'POST')
          .map((q) => q.path.split('/')[2] ?? q.path);
        leads.push({ email, code: r.code, sent });
        if (r.code === 0) continue;
        expect(r.code, show(r)).toBe(1);
        const { error } = r.json();
        expect(error.code, show(r)).toBe('STATE_WRITE');
        expect(error.message).toContain(db);
        expect(r.stderr).not.toMatch(/bug|\n\s+at /);
      }
      // The sweep met the disk at more than one step: before anything was sent, and after the fire.
      const failed = leads.filter((l) => l.code !== 0);
      expect(failed.some((l) => l.sent.length === 0)).toBe(true);
      expect(failed.some((l) => l.sent.includes('triggers'))).toBe(true);
      expect(leads.some((l) => l.code === 0)).toBe(true);

      // A fire whose answer could not be written (the disk filled after it was sent) is on record as
      // sent and unanswered: the re-run says so (`unansweredFires`) and fires again, as after a lost
      // answer (docs/ledger.md, "Fires"): a second workflow run, never a second meeting.
      const refired = new Set<string>();
      for (const l of failed) {
        const rerun = await cli([...demoRouteFirstArgs(l.email), '--json'], dir);
        expect(rerun.code, show(rerun)).toBe(0);
        const told = rerun.json().unansweredFires as unknown[];
        if (told.length) refired.add(l.email);
        if (!l.sent.includes('triggers')) expect(told, l.email).toEqual([]);
      }
      const state = await t.sb.state();
      for (const { email } of leads) {
        expect(state.meetings.filter((m) => m.personEmail === email).length, email).toBe(1);
        expect(state.executions.filter((x) => x.email === email).length, email).toBe(refired.has(email) ? 2 : 1);
      }
    },
  );
});

describe('a shared config directory', () => {
  it('keeps its mode (1777), keeps schedctl files 0600, and warns when the key file is readable by others', async () => {
    const dir = join(tempDir(), 'shared');
    mkdirSync(dir);
    chmodSync(dir, 0o1777);
    const add = await t.sb.cli(['--base-url', t.sb.baseUrl, 'profile', 'add', 'work', '--key-stdin'], {
      configDir: dir,
      input: t.sb.keys.full,
      env: { SCHEDCTL_API_KEY: undefined },
    });
    expect(add.code, show(add)).toBe(0);
    expect(statSync(dir).mode & 0o7777).toBe(0o1777);
    expect(statSync(join(dir, 'config.json')).mode & 0o777).toBe(0o600);
    chmodSync(join(dir, 'config.json'), 0o644);
    const r = await t.sb.cli(['triggers', 'ls', '--json'], {
      configDir: dir,
      env: { SCHEDCTL_API_KEY: undefined, SCHEDCTL_BASE_URL: undefined },
    });
    expect(r.code, show(r)).toBe(0);
    expect(r.stderr).toContain('readable by other users');
  });
});
