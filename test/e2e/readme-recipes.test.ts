/**
 * The README's "Common tasks" are copy-paste recipes: each fenced shell block runs here as
 * written, in bash, with `schedctl` on PATH (a shim for bin/schedctl.js) and the default
 * profile pointing at a sandbox, the way a newcomer runs them after `schedctl sandbox
 * --profile sandbox`. Also: the demo's closing "Next:" lines run as printed in the checkout.
 *
 * The recipes that depend on the day and the zone (book a lead, then move its meeting) run on a
 * Saturday and on a weekday (the sandbox's clock and the CLI's moved there together), in UTC,
 * America/New_York and Asia/Kolkata: six runs side by side, each with its own sandbox and config.
 */
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, fakedClock, runCli, show, tempDir } from '../helpers/cli.js';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { skewedClockEnv } from '../helpers/skewed-clock.js';
import { hasTmux } from '../helpers/tmux.js';

const ROOT = resolve(import.meta.dirname, '../..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
/** The zone of the recipes that do not depend on it (the list of leads, smoke). */
const ZONE = 'Europe/London';

interface Recipe {
  heading: string;
  script: string;
}

/** The fenced `sh` blocks of "## Common tasks", each with the ### heading above it. */
function recipes(): Recipe[] {
  const start = README.indexOf('\n## Common tasks\n');
  expect(start, 'README.md has a "## Common tasks" section').toBeGreaterThan(0);
  const end = README.indexOf('\n## ', start + 1);
  const section = README.slice(start, end === -1 ? undefined : end);
  const found: Recipe[] = [];
  let heading = '';
  for (const part of section.split(/^(### .*)$/m)) {
    if (part.startsWith('### ')) heading = part.slice(4).trim();
    for (const m of part.matchAll(/^```(?:sh|bash|shell)\n([\s\S]*?)^```$/gm)) found.push({ heading, script: m[1]! });
  }
  return found;
}

const hasJq = spawnSync('sh', ['-c', 'command -v jq']).status === 0;

let sb: TestSandbox;
let configDir: string;
let workDir: string;
let env: Record<string, string>;

beforeAll(async () => {
  sb = await startTestSandbox();
  configDir = tempDir();
  workDir = tempDir('schedctl-recipes-');
  const binDir = tempDir('schedctl-bin-');
  writeFileSync(join(binDir, 'schedctl'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
  chmodSync(join(binDir, 'schedctl'), 0o755);
  env = {
    PATH: `${binDir}:${process.env.PATH ?? ''}`,
    HOME: configDir,
    SCHEDCTL_CONFIG_DIR: configDir,
    NO_COLOR: '1',
    CI: 'true',
    TZ: ZONE,
    ...fakedClock(),
  };
  // What `schedctl sandbox --profile sandbox` saves: the first profile, so the default.
  const add = await runCli(['profile', 'add', 'sandbox', '--key-stdin', '--base-url', sb.baseUrl], {
    configDir,
    input: `${sb.keys.full}\n`,
  });
  expect(add.code, show(add)).toBe(0);
});

afterAll(async () => {
  await sb?.close();
});

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a recipe in bash, asynchronously: the sandbox answering it lives in this process. */
function runRecipe(
  script: string,
  where: { cwd: string; env: Record<string, string> } = { cwd: workDir, env },
): Promise<Ran> {
  return new Promise((done, fail) => {
    // errexit: a recipe whose command fails fails here, even when a later line succeeds.
    const child = spawn('bash', ['-e', '-c', script], {
      cwd: where.cwd,
      env: where.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', fail);
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
  });
}
const shown = (r: Ran, script: string) =>
  `recipe:\n${script}\nexit ${r.code}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`;

describe('README "Common tasks"', () => {
  it('has the four recipes, each with a shell block', () => {
    expect(recipes().map((r) => r.heading)).toEqual([
      'Book a meeting for one lead',
      "Find a lead's meeting and move it",
      'Book a list of leads from a script (safe to re-run)',
      'Check the API after a deploy',
    ]);
  });

  it.skipIf(!hasJq)('books a list of leads, and books nothing twice when run again', async () => {
    const { script } = recipes()[2]!;
    const first = await runRecipe(script);
    expect(first.code, shown(first, script)).toBe(0);
    const leads = ['grace@acme.example', 'alan@initech.example'];
    const booked = () => readFileSync(join(workDir, 'booked.txt'), 'utf8').trim().split('\n');
    expect(booked(), shown(first, script)).toEqual(leads);
    const after = (await sb.state()).meetings.filter((m) => leads.includes(m.personEmail));
    expect(after).toHaveLength(2);
    const requests = await sb.requestCount();

    const again = await runRecipe(script);
    expect(again.code, shown(again, script)).toBe(0);
    expect(booked()).toEqual(leads);
    expect((await sb.state()).meetings.filter((m) => leads.includes(m.personEmail))).toHaveLength(2);
    expect(await sb.requestCount(), 'a second run sends nothing for booked leads').toBe(requests);
  });

  it('runs the post-deploy smoke checks and writes the JUnit report', async () => {
    const { script } = recipes()[3]!;
    const r = await runRecipe(script);
    expect(r.code, shown(r, script)).toBe(0);
    expect(readFileSync(join(workDir, 'smoke.xml'), 'utf8')).toContain('<testsuite');
  });
});

/** The next instant, at least an hour from now, that is 12:00 UTC on this weekday (luxon: 1 Monday … 7 Sunday). */
function next(weekday: number): DateTime {
  let at = DateTime.utc().plus({ hours: 1 }).startOf('hour');
  while (at.weekday !== weekday || at.hour !== 12) at = at.plus({ hours: 1 });
  return at;
}

/** 12:00 UTC is the same day in all three zones (07:00 in New York, 17:30 in Kolkata). */
const DAYS = [
  ['a Saturday', 6],
  ['a Wednesday', 3],
] as const;
const ZONES = ['UTC', 'America/New_York', 'Asia/Kolkata'] as const;
const COMBOS = DAYS.flatMap(([day, weekday]) => ZONES.map((zone) => [day, weekday, zone] as const));

describe('README "Common tasks" on any day and in any zone', () => {
  const sandboxes: TestSandbox[] = [];
  afterAll(async () => {
    await Promise.all(sandboxes.map((s) => s.close()));
  });

  it.concurrent.each(COMBOS)(
    'on %s (weekday %i) in %s: books a lead, finds its meeting and moves it as written',
    async (_day, weekday, zone) => {
      const [book, move] = [recipes()[0]!, recipes()[1]!];
      const sandbox = await startTestSandbox();
      sandboxes.push(sandbox);
      // The sandbox's clock and the CLI's, moved to that day together.
      const shiftMs = next(weekday).toMillis() - Date.now();
      await sandbox.advance(Math.round(shiftMs / 1000));
      const dir = tempDir();
      const binDir = join(dir, 'bin');
      execFileSync('mkdir', ['-p', binDir]);
      writeFileSync(join(binDir, 'schedctl'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
      chmodSync(join(binDir, 'schedctl'), 0o755);
      const where = {
        cwd: dir,
        env: {
          PATH: `${binDir}:${process.env.PATH ?? ''}`,
          HOME: dir,
          SCHEDCTL_CONFIG_DIR: dir,
          NO_COLOR: '1',
          CI: 'true',
          TZ: zone,
          ...fakedClock(),
          ...skewedClockEnv(shiftMs),
        },
      };
      const add = await runCli(['profile', 'add', 'sandbox', '--key-stdin', '--base-url', sandbox.baseUrl], {
        configDir: dir,
        input: `${sandbox.keys.full}\n`,
      });
      expect(add.code, show(add)).toBe(0);

      const booked = await runRecipe(book.script, where);
      expect(booked.code, shown(booked, book.script)).toBe(0);
      expect(booked.stdout).toContain('Booked meeting');
      const [first] = (await sandbox.state()).meetings.filter((m) => m.personEmail === 'ada@acme.example');
      expect(first, shown(booked, book.script)).toBeDefined();

      const moved = await runRecipe(move.script, where);
      expect(moved.code, shown(moved, move.script)).toBe(0);
      const after = (await sandbox.state()).meetings.filter((m) => m.personEmail === 'ada@acme.example');
      expect(after).toHaveLength(1);
      // "first tuesday": a Tuesday in the user's zone, another time than the one booked.
      const at = DateTime.fromISO(after[0]!.date).setZone(zone);
      expect(at.weekday, `${after[0]!.date} in ${zone}\n${shown(moved, move.script)}`).toBe(2);
      expect(after[0]!.date).not.toBe(first!.date);
    },
    120_000,
  );
});

/** Port 4010 is what `schedctl sandbox` binds by default; the demo's lines use it as printed. */
function portFree(port: number): Promise<boolean> {
  return new Promise((done) => {
    const server = createServer();
    server.once('error', () => done(false));
    server.listen(port, '127.0.0.1', () => server.close(() => done(true)));
  });
}

describe('the demo', () => {
  let sandbox: ChildProcess | undefined;
  const socket = `schedctl-demo-next-${process.pid}`;
  afterAll(() => {
    // The sandbox runs under bash: end its whole process group (started detached below).
    if (sandbox?.pid) {
      try {
        process.kill(-sandbox.pid, 'SIGTERM');
      } catch {
        // Already gone.
      }
    }
    if (hasTmux) spawnSync('tmux', ['-L', socket, 'kill-server']);
  });

  it.skipIf(!hasTmux)(
    'ends with "Next:" lines that run as printed in the checkout',
    async (t) => {
      const demo = spawnSync(process.execPath, [join(ROOT, 'scripts/demo.mjs')], {
        env: { ...process.env, NO_COLOR: '1' },
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(demo.status, demo.stdout + demo.stderr).toBe(0);
      // Every value the walk-through names comes from the route's --json document.
      expect(demo.stdout).not.toMatch(/\bundefined\b|\bnull\b/);
      expect(demo.stdout).toMatch(/first free time \d{4}-\d\d-\d\dT/);
      const after = demo.stdout.slice(demo.stdout.lastIndexOf('Next:'));
      const lines = after
        .split('\n')
        .filter((l) => /^ {2}\S/.test(l))
        .map((l) => l.trim());
      expect(lines).toHaveLength(2);
      expect(lines[0]).toMatch(/^node bin\/schedctl\.js sandbox --profile sandbox\b/);
      if (!(await portFree(4010))) t.skip('port 4010 is in use here: the demo line starts the sandbox on it');

      const home = tempDir();
      const lineEnv = {
        PATH: process.env.PATH ?? '',
        HOME: home,
        SCHEDCTL_CONFIG_DIR: join(home, 'cfg'),
        NO_COLOR: '1',
        npm_config_update_notifier: 'false',
        // npx with a fresh cache installs the checkout as a package and runs its `prepare`
        // script (a build into this very dist/): other test files spawning the CLI meanwhile
        // then load a half-written bundle. dist/ is built already; the line runs as printed.
        npm_config_ignore_scripts: 'true',
      };
      sandbox = spawn('bash', ['-c', lines[0]!], {
        cwd: ROOT,
        env: lineEnv,
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      sandbox.stdout!.on('data', (d) => (out += d));
      sandbox.stderr!.on('data', (d) => (out += d));
      const until = Date.now() + 30_000;
      while (!out.includes('Press Ctrl+C') && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
      expect(out).toContain('Press Ctrl+C');
      await new Promise((r) => setTimeout(r, 500));
      expect(out).toContain('saved profile "sandbox" for this sandbox; it is the default profile');

      // The wizard needs a terminal: the second line runs in a tmux pane.
      const envWords = Object.entries(lineEnv).map(([k, v]) => `${k}='${v}'`);
      execFileSync('tmux', [
        '-L',
        socket,
        'new-session',
        '-d',
        '-s',
        'next',
        '-x',
        '160',
        '-y',
        '40',
        '-c',
        ROOT,
        `env ${envWords.join(' ')} bash -c '${lines[1]}'; sleep 30`,
      ]);
      const screen = () =>
        execFileSync('tmux', ['-L', socket, 'capture-pane', '-p', '-t', 'next'], { encoding: 'utf8' });
      const end = Date.now() + 30_000;
      while (!screen().includes('Trigger (type to filter)') && Date.now() < end)
        await new Promise((r) => setTimeout(r, 100));
      expect(screen()).toContain('Trigger (type to filter)');
      expect(existsSync(join(home, 'cfg', 'config.json'))).toBe(true);
    },
    90_000,
  );
});
