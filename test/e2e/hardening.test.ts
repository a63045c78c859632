/**
 * Issue 25, end to end against the sandbox and small hostile servers: base URLs with
 * user:password@ are refused wherever they come from (exit 2, never echoed, never exit 7);
 * `profile add` replaces a profile only when asked or forced; a 3xx to a booking, a fire or a
 * move is outcome unknown (exit 7, the journal entry kept); a bulk run on an unwritable config
 * directory is STATE_WRITE before anything is sent.
 */
import { ledgerRows } from '../helpers/ledger-db.js';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { registerSecret, runCli, show, tempDir } from '../helpers/cli.js';
import { writeCsv } from '../helpers/bulk-run.js';
import { useSandbox } from '../helpers/sandbox.js';
import { sendJson, startTestServer, TRIGGERS_BODY, type Handler } from '../helpers/server.js';
import { ENTER, onTerminal } from '../helpers/terminal.js';

const t = useSandbox();
const PASSWORD = 'hunter2-userinfo-pw';
const KEY = 'sk_test_hardening_0123456789abcd';
const OTHER_KEY = 'sk_test_hardening_other_9876wxyz';
registerSecret(PASSWORD, KEY, OTHER_KEY); // never in any output (helpers/cli.ts)

let closers: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(closers.map((s) => s.close()));
  closers = [];
});
async function server(handler: Handler) {
  const s = await startTestServer(handler);
  closers.push(s);
  return s;
}
const withUserinfo = (baseUrl: string) => baseUrl.replace('//', `//alice:${PASSWORD}@`);
const journal = (dir: string): Array<Record<string, unknown>> => ledgerRows(dir, 'attempts');
const future = () => new Date(Math.ceil(Date.now() / 3_600_000) * 3_600_000 + 2 * 3_600_000).toISOString();
const UUID = '9b2d7c1e-4f3a-4e5b-8c6d-7e8f9a0b1c2d';

describe('base URLs with user:password@ are refused wherever they enter', () => {
  it('profile add --base-url: exit 2 naming --base-url, the URL and password never shown, nothing saved', async () => {
    const dir = tempDir();
    const r = await runCli(
      ['profile', 'add', 'p', '--key-stdin', '--no-verify', '--base-url', withUserinfo(t.sb.baseUrl)],
      { configDir: dir, input: KEY },
    );
    expect(r.code, show(r)).toBe(2);
    expect(r.stderr).toContain('the base URL from --base-url carries a user name or password');
    expect(r.stderr).not.toContain('alice');
    expect(existsSync(join(dir, 'config.json'))).toBe(false);
  });

  it('SCHEDCTL_BASE_URL: a booking is exit 2 (not 7), nothing sent, no journal entry', async () => {
    const api = await server((_req, res) => sendJson(res, 201, {}));
    const r = await runCli(
      ['book', 'intro-call', '--start', future(), '--reservation', UUID, '--email', 'a@acme.example', '--json'],
      {
        configDir: t.dir,
        env: { SCHEDCTL_API_KEY: KEY, SCHEDCTL_BASE_URL: withUserinfo(api.baseUrl) },
      },
    );
    expect(r.code, show(r)).toBe(2);
    expect(r.json().error.message).toContain('the base URL from SCHEDCTL_BASE_URL carries a user name or password');
    expect(r.stdout + r.stderr).not.toContain('alice');
    expect(api.seen).toEqual([]);
    expect(journal(t.dir)).toEqual([]);
  });

  it('a stored profile (written before the rule): exit 2 naming the profile; profile ls and show hide the password', async () => {
    const dir = tempDir();
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const config = { defaultProfile: 'old', profiles: { old: { baseUrl: withUserinfo(t.sb.baseUrl), apiKey: KEY } } };
    writeFileSync(join(dir, 'config.json'), JSON.stringify(config), { mode: 0o600 });
    const r = await runCli(['triggers', 'ls'], {
      configDir: dir,
      env: { SCHEDCTL_API_KEY: undefined, SCHEDCTL_BASE_URL: undefined },
    });
    expect(r.code, show(r)).toBe(2);
    expect(r.stderr).toContain('the base URL from profile "old" carries a user name or password');
    expect(r.stderr).toContain('schedctl profile add old --base-url');
    expect(await t.sb.requestCount()).toBe(0);
    const ls = await runCli(['profile', 'ls', '--json'], { configDir: dir });
    expect(ls.json().profiles[0].baseUrl).toBe(t.sb.baseUrl.replace('//', '//***@'));
    const shown = await runCli(['profile', 'show', 'old'], { configDir: dir });
    expect(shown.stdout).toContain('***@');
  });
});

describe('profile add over an existing name', () => {
  const add = (dir: string, key: string, extra: string[] = []) =>
    runCli(['profile', 'add', 'work', '--key-stdin', '--no-verify', '--base-url', t.sb.baseUrl, ...extra], {
      configDir: dir,
      input: key,
    });
  const storedKey = (dir: string) => JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).profiles.work.apiKey;

  it('without a terminal: refused (exit 2) naming --force, the key kept; with --force: replaced, and says what was', async () => {
    const dir = tempDir();
    expect((await add(dir, KEY)).code).toBe(0);
    const again = await add(dir, OTHER_KEY);
    expect(again.code, show(again)).toBe(2);
    expect(again.stderr).toContain('profile "work" already exists');
    expect(again.stderr).toContain('pass --force to replace it');
    expect(again.stderr).toContain('sk_…abcd');
    expect(storedKey(dir)).toBe(KEY);

    const forced = await add(dir, OTHER_KEY, ['--force']);
    expect(forced.code, show(forced)).toBe(0);
    expect(forced.stderr).toContain(`replaced its previous settings (${t.sb.baseUrl}, key sk_…abcd)`);
    expect(storedKey(dir)).toBe(OTHER_KEY);
    const json = await add(dir, KEY, ['--force', '--json']);
    expect(json.json().replaced).toEqual({ baseUrl: t.sb.baseUrl, key: 'sk_…wxyz' });
  });

  it('on a terminal: asks; no keeps the profile (exit 130), yes replaces it', async () => {
    const dir = tempDir();
    expect((await add(dir, KEY)).code).toBe(0);
    const argv = ['profile', 'add', 'work', '--no-verify', '--base-url', t.sb.baseUrl];
    const no = await onTerminal(argv, [['(y/N)', `n${ENTER}`]], { sb: t.sb, configDir: dir });
    expect(no.code, no.stderr).toBe(130);
    expect(storedKey(dir)).toBe(KEY);
    const yes = await onTerminal(
      argv,
      [
        ['(y/N)', `y${ENTER}`],
        ['API key', `${OTHER_KEY}${ENTER}`],
      ],
      { sb: t.sb, configDir: dir },
    );
    expect(yes.code, yes.stderr).toBe(0);
    expect(yes.stderr).toContain('replaced its previous settings');
    expect(storedKey(dir)).toBe(OTHER_KEY);
  });
});

describe('a 3xx answer to a request that changes something is outcome unknown', () => {
  const seeOther: Handler = (req, res) => {
    if (req.method === 'GET' && req.url === '/v1/triggers') return sendJson(res, 200, TRIGGERS_BODY);
    res.writeHead(303, { location: '/v1/somewhere-else' });
    res.end();
  };
  const cli = (baseUrl: string, args: string[]) =>
    runCli([...args, '--json'], { configDir: t.dir, env: { SCHEDCTL_API_KEY: KEY, SCHEDCTL_BASE_URL: baseUrl } });

  it('a booking answered 303: exit 7, its journal entry kept as sent; never followed', async () => {
    const api = await server(seeOther);
    const r = await cli(api.baseUrl, [
      'book',
      'intro-call',
      '--start',
      future(),
      '--reservation',
      UUID,
      '--email',
      'a@acme.example',
    ]);
    expect(r.code, show(r)).toBe(7);
    expect(r.json().error.code).toBe('OUTCOME_UNKNOWN');
    expect(r.json().error.message).toContain('HTTP 303');
    expect(journal(t.dir)).toEqual([expect.objectContaining({ outcome: 'unknown', sentAt: expect.any(String) })]);
    expect(api.seen.map((s) => `${s.method} ${s.url}`)).toEqual(['POST /v1/scheduling/meetings']);
  });

  it('a fire and a move answered 303: exit 7; a read answered 303 stays exit 1', async () => {
    const api = await server(seeOther);
    const fire = await cli(api.baseUrl, ['trigger', 'fire', 'Demo request', '--email', 'a@acme.example']);
    expect(fire.code, show(fire)).toBe(7);
    const move = await cli(api.baseUrl, ['reschedule', UUID, '--start', future()]);
    expect(move.code, show(move)).toBe(7);
    const read = await cli(api.baseUrl, ['events', 'ls']);
    expect(read.code, show(read)).toBe(1);
  });
});

describe('a bulk run whose state cannot be written', () => {
  it('route --from with the config dir under a file: STATE_WRITE (exit 1, not "a bug"), nothing fired or booked', async () => {
    const file = writeCsv(t.dir, 'leads.csv', 'email,company,region', ['ada@acme.example,Acme,emea']);
    const blocker = join(t.dir, 'not-a-dir');
    writeFileSync(blocker, '');
    const r = await t.sb.cli(
      ['route', '--trigger', 'Inbound demo request', '--from', file, '--slot', 'first', '--yes', '--json'],
      { configDir: join(blocker, 'config') },
    );
    expect(r.code, show(r)).toBe(1);
    expect(r.json().error.code).toBe('STATE_WRITE');
    expect(r.stdout + r.stderr).not.toMatch(/\bbug\b/);
    expect((await t.sb.state()).requests.filter((q) => q.method !== 'GET')).toEqual([]);
  });
});
