/**
 * Issue 54, finding 7, end to end: a field name is data. `__proto__` (an object-prototype name,
 * which a plain object assignment drops without a word) is refused like any other name the
 * trigger's form does not have, in `route --field`, in a bulk file's columns and in the MCP
 * tools' `fields`, and nothing is fired. A base URL refused for its query is shown without it.
 */
import { describe, expect, it } from 'vitest';
import { demoRouteFirstArgs, DEMO_TRIGGER } from '../helpers/args.js';
import { writeCsv } from '../helpers/bulk-run.js';
import { registerSecret, show } from '../helpers/cli.js';
import { shown, useMcpSessions } from '../helpers/mcp-client.js';
import { useSandbox } from '../helpers/sandbox.js';

const t = useSandbox();
const cli = (args: string[]) => t.sb.cli(args, { configDir: t.dir });
const changes = async () =>
  (await t.sb.state()).requests.map((q) => `${q.method} ${q.path}`).filter((s) => !s.startsWith('GET '));
const mcp = useMcpSessions(t);

describe('an object-prototype name is an unknown field like any other', () => {
  it.each(['__proto__', 'constructor', 'toString'])(
    'route --field %s=1: exit 2 naming it, nothing fired',
    async (name) => {
      const r = await cli([...demoRouteFirstArgs('ada@acme.example'), '--field', `${name}=1`, '--json']);
      expect(r.code, show(r)).toBe(2);
      expect(r.stdout).toContain(`${name}: not a field of this trigger`);
      expect(await changes()).toEqual([]);
    },
  );

  it('route --from: a __proto__ column is an unknown column, nothing sent', async () => {
    const file = writeCsv(t.dir, 'leads.csv', 'email,company,region,__proto__', ['a@acme.example,Acme,emea,1']);
    const r = await cli(['route', '--from', file, '--trigger', DEMO_TRIGGER]);
    expect(r.code, show(r)).toBe(2);
    expect(r.stderr).toContain('__proto__');
    expect(await changes()).toEqual([]);
  });

  it('route_lead and fire_trigger with fields {"__proto__": …}: a USAGE result naming it, nothing fired', async () => {
    const s = await mcp();
    // A computed key: `{ __proto__: … }` written plainly would set the literal's prototype.
    const fields = { company: 'Acme', region: 'emea', ['__proto__']: 'x' };
    const route = await s.call('route_lead', {
      trigger: DEMO_TRIGGER,
      email: 'ada@acme.example',
      fields,
      slot: 'first',
    });
    expect(route.isError, shown(route)).toBe(true);
    expect(route.doc.error.code).toBe('USAGE');
    expect(route.text).toContain('__proto__: not a field of this trigger');
    const fire = await s.call('fire_trigger', { trigger: DEMO_TRIGGER, email: 'ada@acme.example', fields });
    expect(fire.isError, shown(fire)).toBe(true);
    expect(fire.text).toContain('__proto__: not a field of this trigger');
    expect(await changes()).toEqual([]);
  });
});

describe('a refused base URL is shown without its query', () => {
  const PW = 's3cr3tPW-query-54';
  registerSecret(PW);
  it('--base-url with ?x=u:PW@h: exit 2 naming the query as refused, the password never printed', async () => {
    const url = `${t.sb.baseUrl}/path?x=u:${PW}@h`;
    for (const json of [[], ['--json']]) {
      const r = await cli(['triggers', 'ls', '--base-url', url, ...json]);
      expect(r.code, show(r)).toBe(2);
      expect(r.stdout + r.stderr).toContain('must not carry a query or fragment');
      expect(r.stdout + r.stderr).toContain(`${t.sb.baseUrl}/path?…`);
    }
  });
});
