import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertNoSecretsInFiles, show } from '../helpers/cli.js';
import { useSandbox, type TestSandbox } from '../helpers/sandbox.js';

// Each test gets its own config dir (t.dir), so remembered outcomes never leak between tests.
const t = useSandbox();
let triggers: Array<{ id: string; name: string; fields: unknown[] }>;
const id = (name: string) => triggers.find((x) => x.name === name)!.id;
const cli = (args: string[], opts: Parameters<TestSandbox['cli']>[1] = {}) =>
  t.sb.cli(args, { configDir: t.dir, ...opts });
const posts = async () => (await t.sb.state()).requests.filter((r) => r.method === 'POST');

beforeAll(async () => {
  const res = await fetch(`${t.sb.baseUrl}/v1/triggers`, { headers: { authorization: `Bearer ${t.sb.keys.full}` } });
  triggers = ((await res.json()) as { triggers: typeof triggers }).triggers;
});

describe('triggers ls and show', () => {
  it('lists the triggers as a table, and as the API body with --json', async () => {
    const r = await cli(['triggers', 'ls']);
    expect(r.code, show(r)).toBe(0);
    expect(r.stdout).toMatch(/NAME\s+ID\s+FIELDS\s+DESCRIPTION/);
    expect(r.stdout).toMatch(
      new RegExp(`Inbound demo request\\s+${id('Inbound demo request')}\\s+5\\s+Website demo form`),
    );
    const j = await cli(['triggers', 'ls', '--json']);
    expect(j.json()).toEqual({ triggers });
  });

  it('shows a trigger found by case-insensitive name with one list request', async () => {
    const r = await cli(['triggers', 'show', 'inbound DEMO request']);
    expect(r.code, show(r)).toBe(0);
    expect(r.stdout).toMatch(/NAME\s+LABEL\s+TYPE\s+REQUIRED\s+OPTIONS/);
    expect(r.stdout).toMatch(
      /region\s+Region\s+select\s+yes\s+emea \(Europe, Middle East and Africa\), americas \(Americas\), apac \(Asia Pacific\)/,
    );
    expect(r.stdout).toMatch(/notes\s+Anything else\?\s+text\s+no/);
    expect(r.stderr).toContain(
      `schedctl trigger fire ${id('Inbound demo request')} --email <lead> --field company=… --field region=…`,
    );
    expect(await t.sb.requestCount()).toBe(1);
    const j = await cli(['triggers', 'show', id('Partner application'), '--json']);
    expect(j.json()).toEqual(triggers.find((x) => x.name === 'Partner application'));
  });

  it('answers exit 4 naming the available triggers for an unknown one', async () => {
    const r = await cli(['triggers', 'show', 'Partner', '--json']);
    expect(r.code, show(r)).toBe(4);
    expect(r.json().error).toMatchObject({ code: 'NOT_FOUND', message: 'no trigger "Partner" in this workspace' });
    expect(r.json().error.hint).toContain('"Partner application"');
  });
});

describe('trigger fire', () => {
  const demo = (...extra: string[]) => [
    'trigger',
    'fire',
    'Inbound demo request',
    '--email',
    'ada@acme.com',
    '--field',
    'company=Acme',
    ...extra,
  ];

  it('fires a scheduler trigger and prints the booking page, link id and the exact next commands', async () => {
    const r = await cli(demo('--field', 'region=emea'));
    expect(r.code, show(r)).toBe(0);
    const state = await t.sb.state();
    expect(state.executions).toHaveLength(1);
    const exec = state.executions[0]!;
    const outcome = exec.outcome as { type: string; schedulingLinkId: string; schedulerUrl: string };
    expect(outcome.type).toBe('scheduler');
    expect(r.stdout).toContain(`executionId       ${exec.id}`);
    expect(r.stdout).toContain(`booking page      ${outcome.schedulerUrl}`);
    expect(outcome.schedulerUrl).toContain('/book/sales-emea');
    expect(r.stdout).toContain(`schedulingLinkId  ${outcome.schedulingLinkId}`);
    expect(r.stdout).toContain(`next: schedctl slots ${outcome.schedulingLinkId}`);
    expect(r.stdout).toContain(`--execution ${exec.id} --email ada@acme.com`);
    expect(r.stderr).toContain(
      `Firing "Inbound demo request" for ada@acme.com with SCHEDCTL_API_KEY at ${t.sb.baseUrl}`,
    );
    expect(state.requests.map((q) => q.method)).toEqual(['GET', 'POST']);
    assertNoSecretsInFiles(t.dir);
  });

  it('prints exactly the API fire result with --json, and accepts an option label', async () => {
    const r = await cli(demo('--field', 'region=Asia Pacific', '--json'));
    expect(r.code, show(r)).toBe(0);
    const exec = (await t.sb.state()).executions[0]!;
    expect(r.json()).toEqual({ executionId: exec.id, outcome: exec.outcome });
    expect(r.json().outcome.schedulerUrl).toContain('/book/sales-apac');
  });

  it('prints the redirect URL', async () => {
    const args = [
      'trigger',
      'fire',
      'Partner application',
      '--email',
      'p@partner.io',
      '--field',
      'company=P',
      '--field',
      'partner_type=reseller',
    ];
    const r = await cli(args);
    expect(r.code, show(r)).toBe(0);
    expect(r.stdout).toMatch(/url\s+https:\/\/partners\.example\.com\/apply\?type=reseller/);
    const j = await cli([...args, '--json']);
    expect(j.json()).toEqual({
      executionId: expect.any(String),
      outcome: { type: 'redirect', url: 'https://partners.example.com/apply?type=reseller' },
    });
  });

  it('reports a none outcome as a finished workflow, exit 0', async () => {
    const r = await cli(['trigger', 'fire', 'newsletter signup', '--email', 'n@x.io', '--field', 'topic=events']);
    expect(r.code, show(r)).toBe(0);
    expect(r.stdout).toContain('the workflow finished without offering a meeting');
    const j = await cli(['trigger', 'fire', 'newsletter signup', '--email', 'n@x.io', '--json']);
    expect(j.json()).toEqual({ executionId: expect.any(String), outcome: { type: 'none' } });
    // none outcomes are not remembered: the second fire ran.
    expect((await t.sb.state()).executions).toHaveLength(2);
  });

  it('reads --responses from a file and from stdin, --field winning', async () => {
    const file = join(t.dir, 'responses.json');
    writeFileSync(file, JSON.stringify({ company: 'Acme', region: 'emea', team_size: '11-50' }));
    const r = await cli([
      'trigger',
      'fire',
      id('Inbound demo request'),
      '--email',
      'a@acme.com',
      '--responses',
      file,
      '--field',
      'region=americas',
      '--json',
    ]);
    expect(r.code, show(r)).toBe(0);
    expect((await t.sb.state()).executions[0]!.outcome).toMatchObject({
      schedulerUrl: expect.stringContaining('/book/sales-americas'),
    });
    const s = await cli(
      ['trigger', 'fire', id('Inbound demo request'), '--email', 'b@acme.com', '--responses', '-', '--json'],
      {
        input: '{"company":"Acme","region":"apac"}',
      },
    );
    expect(s.code, show(s)).toBe(0);
    expect(s.json().outcome.schedulerUrl).toContain('/book/sales-apac');
  });

  it('passes --context members, utmParams as JSON', async () => {
    const r = await cli(
      demo('--field', 'region=emea', '--context', 'utmParams={"source":"ads"}', '--context', 'gclid=g1', '--debug'),
    );
    expect(r.code, show(r)).toBe(0);
    expect(r.stderr).toContain('"context":{"utmParams":{"source":"ads"},"gclid":"g1"}');
  });

  it('shows a remembered scheduler outcome instead of firing again, and fires again with --force', async () => {
    const first = await cli(demo('--field', 'region=emea', '--json'));
    expect(first.code, show(first)).toBe(0);
    const again = await cli([
      'trigger',
      'fire',
      'Inbound demo request',
      '--email',
      'ADA@acme.com',
      '--field',
      'company=Acme',
      '--field',
      'region=emea',
    ]);
    expect(again.code, show(again)).toBe(0);
    expect(again.stderr).toContain('already held');
    expect(again.stderr).toContain('routing fairness counts again');
    expect(again.stderr).toContain('--force');
    expect(again.stdout).toContain(`executionId       ${first.json().executionId}`);
    expect(again.stdout).toContain(`next: schedctl slots ${first.json().outcome.schedulingLinkId}`);
    const reused = await cli(demo('--field', 'region=emea', '--json'));
    expect(reused.json()).toEqual({
      status: 'reused',
      executionId: first.json().executionId,
      outcome: first.json().outcome,
      firedAt: expect.any(String),
    });
    expect((await t.sb.state()).executions).toHaveLength(1);
    expect(await posts()).toHaveLength(1);

    const forced = await cli(demo('--field', 'region=emea', '--force', '--json'));
    expect(forced.code, show(forced)).toBe(0);
    expect(forced.json().executionId).not.toBe(first.json().executionId);
    expect((await t.sb.state()).executions).toHaveLength(2);
  });

  describe('rejects bad input before anything is fired (exit 2)', () => {
    const cases: Array<{ name: string; args: string[]; input?: string; expectGets: number; says: RegExp }> = [
      {
        name: 'missing required fields, listed together',
        args: ['trigger', 'fire', 'Inbound demo request', '--email', 'a@acme.com'],
        expectGets: 1,
        says: /fix company, region/,
      },
      {
        name: 'a select value that is not an option',
        args: demo('--field', 'region=europe'),
        expectGets: 1,
        says: /region: "europe" is not an option; valid values: emea, americas, apac/,
      },
      {
        name: 'an unknown key, with the closest field',
        args: demo('--field', 'region=emea', '--field', 'regoin=emea'),
        expectGets: 1,
        says: /regoin: not a field of this trigger; did you mean "region"\?/,
      },
      {
        name: 'a bad email',
        args: ['trigger', 'fire', 'Inbound demo request', '--email', 'ada@', '--field', 'company=A'],
        expectGets: 0,
        says: /invalid --email "ada@"/,
      },
      {
        name: 'a missing --email',
        args: ['trigger', 'fire', 'Inbound demo request'],
        expectGets: 0,
        says: /missing --email/,
      },
      {
        name: 'an unreadable --responses file',
        args: demo('--responses', '/nonexistent/r.json'),
        expectGets: 0,
        says: /cannot read --responses file \/nonexistent\/r.json: no such file/,
      },
      {
        name: 'a --responses that is not JSON',
        args: demo('--responses', '-'),
        input: 'company=Acme',
        expectGets: 0,
        says: /--responses - \(stdin\) is not valid JSON/,
      },
      {
        name: 'a --responses that is not an object',
        args: demo('--responses', '-'),
        input: '["a"]',
        expectGets: 0,
        says: /--responses must hold a JSON object/,
      },
      {
        name: 'an unknown --context key',
        args: demo('--field', 'region=emea', '--context', 'utm=x'),
        expectGets: 0,
        says: /invalid --context key "utm"/,
      },
      {
        name: 'a --field without =',
        args: demo('--field', 'region'),
        expectGets: 0,
        says: /invalid --field "region": expected key=value/,
      },
    ];
    for (const c of cases) {
      it(c.name, async () => {
        const r = await cli([...c.args, '--json'], c.input !== undefined ? { input: c.input } : {});
        expect(r.code, show(r)).toBe(2);
        const doc = r.json();
        expect(doc.error.code).toBe('USAGE');
        expect([doc.error.message, ...(doc.error.details ?? [])].join('\n')).toMatch(c.says);
        const requests = (await t.sb.state()).requests;
        expect(requests.filter((q) => q.method === 'POST')).toEqual([]);
        expect(requests.map((q) => `${q.method} ${q.path}`)).toEqual(Array(c.expectGets).fill('GET /v1/triggers'));
      });
    }

    it('lists the details in human mode', async () => {
      const r = await cli([
        'trigger',
        'fire',
        'Inbound demo request',
        '--email',
        'a@acme.com',
        '--field',
        'compnay=Acme',
      ]);
      expect(r.code, show(r)).toBe(2);
      expect(r.stderr).toContain('  - compnay: not a field of this trigger; did you mean "company"?');
      expect(r.stderr).toContain('  - company: required');
      expect(r.stderr).toContain('  - region: required');
      expect(r.stderr).toContain('nothing was fired');
    });
  });

  it('answers exit 3 naming the scope when the key cannot fire', async () => {
    const r = await cli(demo('--field', 'region=emea', '--json'), { key: 'readOnly' });
    expect(r.code, show(r)).toBe(3);
    expect(r.json().error).toMatchObject({ code: 'MISSING_SCOPE', status: 403 });
    expect(r.json().error.message).toContain('triggers:write');
    expect((await t.sb.state()).executions).toHaveLength(0);
  });

  it('answers exit 3 for a revoked key', async () => {
    const r = await cli(demo('--field', 'region=emea'), { key: 'revoked' });
    expect(r.code, show(r)).toBe(3);
    expect(r.stderr).toContain('INVALID_API_KEY');
  });

  it('answers exit 4 for an unknown trigger id, without firing', async () => {
    const r = await cli(['trigger', 'fire', '00000000-0000-4000-8000-000000000000', '--email', 'a@acme.com', '--json']);
    expect(r.code, show(r)).toBe(4);
    expect(r.json().error.code).toBe('NOT_FOUND');
    expect(await posts()).toEqual([]);
  });

  it('explains WORK_EMAIL_REQUIRED from the server', async () => {
    const r = await cli([
      'trigger',
      'fire',
      'Inbound demo request',
      '--email',
      'ada@gmail.com',
      '--field',
      'company=A',
      '--field',
      'region=emea',
      '--json',
    ]);
    expect(r.code, show(r)).toBe(2);
    expect(r.json().error).toMatchObject({ code: 'WORK_EMAIL_REQUIRED', status: 400 });
    expect(r.json().error.hint).toContain('work email');
    expect((await t.sb.state()).executions).toHaveLength(0);
  });

  it("shows the server's INVALID_REQUEST details", async () => {
    await t.sb.fault({ method: 'POST', path: '/v1/triggers/*', fault: 'status', status: 400, code: 'INVALID_REQUEST' });
    const r = await cli(demo('--field', 'region=emea'));
    expect(r.code, show(r)).toBe(2);
    expect(r.stderr).toContain('INVALID_REQUEST, HTTP 400');
    expect(r.stderr).toContain(`schedctl triggers show ${id('Inbound demo request')}`);
  });

  it('exits 7 on a lost response, says not to fire again, and never fires twice', async () => {
    await t.sb.fault({ method: 'POST', path: '/v1/triggers/*', fault: 'stall-after-commit' });
    const r = await cli(['--timeout', '1', ...demo('--field', 'region=emea'), '--json']);
    expect(r.code, show(r)).toBe(7);
    expect(r.json().error.code).toBe('OUTCOME_UNKNOWN');
    expect(r.json().error.message).toContain('do not fire again blindly');
    expect((await t.sb.state()).executions).toHaveLength(1);
    expect(await posts()).toHaveLength(1);
  });
});
