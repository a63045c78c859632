/**
 * Issue 36, second pass, end to end: a workspace is a set of keys at one API and it only grows.
 * A name joins a key's profiles (never forks them), a rotated key keeps its profile's leads,
 * --new-workspace starts empty, and records from before workspaces are attributed to every
 * profile of the config directory at once (what no profile can take blocks its lead).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { demoRouteFirstArgs } from '../helpers/args.js';
import { registerSecret, runCli, show } from '../helpers/cli.js';
import { useSandbox } from '../helpers/sandbox.js';
import { keyFingerprint } from '../../src/state/identity.js';
import { openState } from '../../src/state/index.js';

const t = useSandbox();
const noEnv = { SCHEDCTL_API_KEY: undefined, SCHEDCTL_BASE_URL: undefined };

/** A further key of the sandbox's account (POST /_sandbox/keys), as a rotation hands one out. */
async function mintKey(): Promise<string> {
  const res = await fetch(`${t.sb.baseUrl}/_sandbox/keys`, { method: 'POST', body: '{"scope": "full"}' });
  const { key } = (await res.json()) as { key: string };
  registerSecret(key);
  return key;
}

const add = (name: string, key: string, ...flags: string[]) =>
  runCli(['profile', 'add', name, '--key-stdin', '--base-url', t.sb.baseUrl, ...flags], {
    configDir: t.dir,
    input: key,
    env: noEnv,
  });
const route = (profile: string, email: string, region = 'emea') =>
  runCli(['--profile', profile, ...demoRouteFirstArgs(email, region), '--json'], { configDir: t.dir, env: noEnv });
const meetingsOf = async (email: string) => (await t.sb.state()).meetings.filter((m) => m.personEmail === email);

describe('a name joins a key, never forks it', () => {
  it('one key: a profile without a name books; profiles --workspace acme and Acme then refuse the lead', async () => {
    const key = t.sb.keys.full;
    expect((await add('plain', key)).code).toBe(0);
    const email = 'once@acme.example';
    const first = await route('plain', email);
    expect(first.code, show(first)).toBe(0);
    const a = await add('a', key, '--workspace', 'acme');
    expect(a.code, show(a)).toBe(0);
    expect(a.stderr).toMatch(/joins workspace .*#ws:acme \(named acme\): 1 lead on record/);
    const b = await add('b', key, '--workspace', 'Acme', '--json');
    expect(b.code, show(b)).toBe(0);
    expect(b.json().workspace).toMatchObject({ how: 'recorded', leads: 1, names: ['acme'] });
    for (const profile of ['a', 'b', 'plain']) {
      const again = await route(profile, email, 'apac');
      expect(again.code, `${profile}\n${show(again)}`).toBe(5);
      expect(again.json().error.code).toBe('LEAD_HAS_MEETING');
      expect(again.json().error.message).toContain(`${email} already has meeting`);
    }
    // Whichever profile carries the name, the key's profiles agree.
    const shown = await Promise.all(
      ['a', 'b', 'plain'].map((p) => runCli(['profile', 'show', p, '--json'], { configDir: t.dir, env: noEnv })),
    );
    const ids = shown.map((r) => r.json().profile.workspace);
    expect(new Set(ids).size).toBe(1);
    expect(shown[2]!.json().profile.workspaceNames).toEqual(['acme']);
    expect(shown[2]!.json().profile.workspaceKeys).toEqual([
      expect.objectContaining({ fingerprint: keyFingerprint(key), names: ['acme'] }),
    ]);
    expect(await meetingsOf(email)).toHaveLength(1);
  });
});

describe("a rotated key keeps its profile's workspace", () => {
  it("profile add --force with a new key joins the old key's workspace: the lead is not booked again", async () => {
    const old = t.sb.keys.full;
    expect((await add('p', old)).code).toBe(0);
    const email = 'rotated@acme.example';
    expect((await route('p', email)).code).toBe(0);
    const before = (await runCli(['profile', 'show', 'p', '--json'], { configDir: t.dir, env: noEnv })).json();

    const rotated = await add('p', await mintKey(), '--force', '--json');
    expect(rotated.code, show(rotated)).toBe(0);
    const ws = rotated.json().workspace;
    expect(ws).toMatchObject({
      workspace: before.profile.workspace,
      how: 'rotation',
      previousKey: keyFingerprint(old),
      leads: 1,
    });
    expect(ws.keys.map((k: { fingerprint: string }) => k.fingerprint)).toContain(keyFingerprint(old));

    // A second rotation, said in words: which workspace, how many leads.
    const again = await add('p', await mintKey(), '--force');
    expect(again.code, show(again)).toBe(0);
    expect(again.stderr).toContain(`the new key joins workspace ${before.profile.workspace}`);
    expect(again.stderr).toContain('1 lead on record, 3 keys');

    const rebook = await route('p', email, 'apac');
    expect(rebook.code, show(rebook)).toBe(5);
    expect(rebook.json().error.code).toBe('LEAD_HAS_MEETING');
    const status = await runCli(['--profile', 'p', 'state', 'status', '--json'], { configDir: t.dir, env: noEnv });
    expect(status.code, show(status)).toBe(0);
    expect(status.json().workspace.keys).toHaveLength(3);
    // In words too: the workspace, its keys by fingerprint (never a key: runCli checks every output).
    const text = await runCli(['profile', 'show', 'p'], { configDir: t.dir, env: noEnv });
    expect(text.stdout).toContain(`workspace: ${before.profile.workspace}`);
    expect(text.stdout).toContain(`key ${keyFingerprint(old)}, since `);
    const st = await runCli(['--profile', 'p', 'state', 'status'], { configDir: t.dir, env: noEnv });
    expect(st.stdout).toContain(`Workspace: ${before.profile.workspace}`);
    expect(st.stdout.match(/^ {2}key [0-9a-f]{16}, since /gm)).toHaveLength(3);
    expect(await meetingsOf(email)).toHaveLength(1);
  });

  it('--new-workspace starts empty (the lead books again, deliberately); a key already in a workspace is refused', async () => {
    expect((await add('p', t.sb.keys.full)).code).toBe(0);
    const email = 'fresh@acme.example';
    expect((await route('p', email)).code).toBe(0);
    const fresh = await add('p', await mintKey(), '--force', '--new-workspace', '--json');
    expect(fresh.code, show(fresh)).toBe(0);
    expect(fresh.json().workspace).toMatchObject({ how: 'new', leads: 0 });
    expect(fresh.json().workspace).not.toHaveProperty('previousKey');
    const booked = await route('p', email, 'apac');
    expect(booked.code, show(booked)).toBe(0);
    expect(await meetingsOf(email)).toHaveLength(2);

    const taken = await add('q', t.sb.keys.full, '--new-workspace');
    expect(taken.code, show(taken)).toBe(2);
    expect(taken.stderr).toContain('--new-workspace: this key already belongs to workspace');
    expect(taken.stderr).toContain('profile "q" was not saved');
  });
});

describe('records from before workspaces', () => {
  const LATER = new Date(Date.now() + 3 * 86_400_000).toISOString();
  function meeting(id: string, email: string) {
    const at = new Date().toISOString();
    return {
      id,
      eventId: '7a3c9f10-1b2d-4e5f-8a9b-0c1d2e3f4a5b',
      title: 'Intro',
      status: 'scheduled',
      date: LATER,
      duration: 30,
      meetingLink: null,
      conferencingType: 'zoom',
      location: null,
      personEmail: email,
      additionalAttendees: [],
      cancellationReason: null,
      createdAt: at,
      updatedAt: at,
    };
  }
  /** The profiles as a schedctl before workspaces saved them (config.json). */
  function profiles(keys: Record<string, string>) {
    const all = Object.fromEntries(
      Object.entries(keys).map(([name, apiKey]) => [name, { baseUrl: t.sb.baseUrl, apiKey }]),
    );
    writeFileSync(join(t.dir, 'config.json'), JSON.stringify({ defaultProfile: Object.keys(keys)[0], profiles: all }), {
      mode: 0o600,
    });
  }
  /** The ledger as a schedctl before workspaces left it: records under `profile@url`. */
  async function legacy(records: { scope: string; email: string; unknown?: boolean }[]) {
    const state = openState(t.dir, { now: () => new Date() });
    for (const [i, r] of records.entries()) {
      if (r.unknown) {
        const a = await state.journal.add({
          scope: r.scope,
          event: 'intro-call',
          reservationId: `r${i}`,
          workflowExecutionId: null,
          personEmail: r.email,
          startTime: LATER,
          outcome: 'unknown',
        });
        await state.journal.markSent(a.id);
      } else {
        await state.meetings.record({
          scope: r.scope,
          meeting: meeting(`m${i}`, r.email),
          source: 'booked',
          event: 'intro-call',
        });
      }
    }
    await state.close();
  }

  it("two profiles of one key: both profiles' legacy records are seen by either", async () => {
    const key = t.sb.keys.full;
    profiles({ p1: key, p2: key });
    await legacy([
      { scope: `p1@${t.sb.baseUrl}`, email: 'one@acme.example' },
      { scope: `p2@${t.sb.baseUrl}`, email: 'two@acme.example' },
    ]);
    for (const [profile, email] of [
      ['p1', 'two@acme.example'],
      ['p2', 'one@acme.example'],
    ] as const) {
      const r = await route(profile, email);
      expect(r.code, `${profile}\n${show(r)}`).toBe(5);
      expect(r.json().error.code).toBe('LEAD_HAS_MEETING');
    }
    expect(await meetingsOf('one@acme.example')).toHaveLength(0);
    expect(await meetingsOf('two@acme.example')).toHaveLength(0);
  });

  it('records of a key from the environment (env@url) go to that key when the first command runs with one', async () => {
    await legacy([{ scope: `env@${t.sb.baseUrl}`, email: 'env@acme.example' }]);
    const r = await runCli([...demoRouteFirstArgs('env@acme.example'), '--json'], {
      configDir: t.dir,
      env: { SCHEDCTL_API_KEY: t.sb.keys.full, SCHEDCTL_BASE_URL: t.sb.baseUrl },
    });
    expect(r.code, show(r)).toBe(5);
    expect(r.json().error.code).toBe('LEAD_HAS_MEETING');
    expect(r.json().error.message).not.toContain('before workspaces');
    expect(await meetingsOf('env@acme.example')).toHaveLength(0);
  });

  it('a record of a profile not in this config directory blocks its lead in every workspace at the URL, saying why', async () => {
    profiles({ p: t.sb.keys.full });
    await legacy([{ scope: `gone@${t.sb.baseUrl}/`, email: 'legacy@acme.example', unknown: true }]);
    const r = await route('p', 'legacy@acme.example');
    expect(r.code, show(r)).toBe(5);
    expect(r.json().error.message).toContain('unknown outcome');
    expect(r.json().error.message).toContain(
      'a record from before workspaces whose profile is not in this config directory',
    );
    // Another key at the same API, in a workspace of its own, is blocked too.
    expect((await add('other', await mintKey(), '--new-workspace')).code).toBe(0);
    const other = await route('other', 'legacy@acme.example');
    expect(other.code, show(other)).toBe(5);
    expect(await meetingsOf('legacy@acme.example')).toHaveLength(0);
  });
});
