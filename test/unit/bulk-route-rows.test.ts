import { describe, expect, it } from 'vitest';
import type { Trigger } from '../../src/api/schemas.js';
import {
  type RouteRow,
  type RouteRowContext,
  unknownRouteColumns,
  validateRouteRow,
} from '../../src/bulk/route-rows.js';
import { demoTrigger, NOTES_FIELD, REGION } from '../helpers/demo-trigger.js';

const demo = demoTrigger({ regions: [REGION.emea, REGION.americas], optional: [NOTES_FIELD] });
const partners: Trigger = {
  id: '22222222-2222-4222-8222-222222222222',
  name: 'Partner referral',
  description: '',
  fields: [{ name: 'partner', label: 'Partner', type: 'text', required: true, options: null }],
};

const now = new Date('2026-11-23T09:00:00Z');
const ctx: RouteRowContext = {
  triggers: [demo, partners],
  defaultTrigger: 'Inbound demo request',
  zone: 'Europe/Berlin',
  now,
};
const good = { email: 'ada@acme.example', company: 'Acme', region: 'emea' };

function valid(record: Record<string, string>, c: RouteRowContext = ctx): RouteRow {
  const result = validateRouteRow(record, c);
  if (!result.ok) throw new Error(`expected a valid row, got: ${result.errors.join(' | ')}`);
  return result.row;
}
function errors(record: Record<string, string>, c: RouteRowContext = ctx): string[] {
  const result = validateRouteRow(record, c);
  if (result.ok) throw new Error('expected an invalid row');
  return result.errors;
}

describe('validateRouteRow', () => {
  it('refuses a day without a time of day in the slot column (nobody picks in a file)', () => {
    expect(errors({ ...good, slot: '2026-12-01' })).toEqual([
      'slot: invalid value "2026-12-01": a day without a time of day (2026-12-01) is not one time',
    ]);
    expect(valid({ ...good, slot: '2026-12-01 15:00' }).slot).toEqual(new Date('2026-12-01T14:00:00Z'));
  });
  it('builds the fire responses and booking details of a good row, with slot first by default', () => {
    const row = valid({
      ...good,
      notes: '',
      first_name: ' Ada ',
      last_name: 'Lovelace',
      phone: '+44 20 7946 0000',
      guests: 'b@acme.example; c@acme.example',
      tz: 'europe/london',
    });
    expect(row).toEqual({
      email: 'ada@acme.example',
      trigger: demo,
      responses: { company: 'Acme', region: 'emea' },
      slot: 'first',
      firstName: 'Ada',
      lastName: 'Lovelace',
      phone: '+44 20 7946 0000',
      guests: ['b@acme.example', 'c@acme.example'],
      tz: 'Europe/London',
    });
  });

  it('maps a select label to its value, as --field does', () => {
    expect(valid({ ...good, region: 'Americas' }).responses.region).toBe('americas');
  });

  it('takes the trigger from its column (id or name) over the default', () => {
    const row = valid({ email: 'ada@acme.example', trigger: partners.id, partner: 'Globex', company: '', region: '' });
    expect(row.trigger).toBe(partners);
    expect(row.responses).toEqual({ partner: 'Globex' });
  });

  it('reads a local slot in the row tz, else in the run zone, and refuses a past one', () => {
    expect(valid({ ...good, slot: '2026-12-01 14:00' }).slot).toEqual(new Date('2026-12-01T13:00:00Z'));
    expect(valid({ ...good, slot: '2026-12-01 14:00', tz: 'America/New_York' }).slot).toEqual(
      new Date('2026-12-01T19:00:00Z'),
    );
    expect(valid({ ...good, slot: 'FIRST' }).slot).toBe('first');
    expect(errors({ ...good, slot: '2026-11-01 10:00' })).toEqual([
      expect.stringMatching(/^slot: 2026-11-01 10:00 .* is in the past$/),
    ]);
    expect(errors({ ...good, slot: 'soonish' })).toEqual([
      expect.stringMatching(/^slot: .*"soonish".*not a time schedctl understands/),
    ]);
  });

  it('names the column of every problem, all at once', () => {
    const got = errors({
      email: 'not-an-email',
      company: '',
      region: 'mars',
      tz: 'Mars/Base',
      guests: 'x@y.example, z@y.example',
      slot: 'first',
    });
    expect(got).toEqual([
      'email: "not-an-email" is not a valid email address',
      'region: "mars" is not an option; valid values: emea, americas',
      'company: required (Company); the column "company" is empty',
      'tz: unknown time zone "Mars/Base"; use an IANA zone name such as Europe/Berlin, America/New_York or UTC',
      'guests: not a valid email address: "x@y.example, z@y.example" (separate guests with ;)',
    ]);
  });

  it('says when a required field has no column at all', () => {
    expect(errors({ email: 'ada@acme.example', region: 'emea' })).toEqual([
      'company: required (Company); the column "company" is missing',
    ]);
  });

  it('refuses more than 10 guests', () => {
    const guests = Array.from({ length: 11 }, (_, i) => `g${i}@x.example`).join(';');
    expect(errors({ ...good, guests })).toEqual(['guests: 11 guests; at most 10']);
    expect(valid({ ...good, guests: guests.split(';').slice(0, 10).join(';') }).guests).toHaveLength(10);
  });

  it('reports an unknown column by name, with a suggestion', () => {
    expect(errors({ ...good, compnay: 'Acme' })).toEqual(['compnay: unknown column; did you mean "company"?']);
    expect(errors({ ...good, xyzzy: '1' })).toEqual([
      expect.stringMatching(/^xyzzy: unknown column; columns: email, trigger, slot, .*company/),
    ]);
  });

  it("ignores another trigger's column while its cell is empty, and refuses it when filled", () => {
    expect(valid({ ...good, partner: '' }).responses).toEqual({ company: 'Acme', region: 'emea' });
    expect(errors({ ...good, partner: 'Globex' })).toEqual([
      'partner: not a field of trigger "Inbound demo request"; leave the cell empty for this row',
    ]);
  });

  it('needs a trigger from the column or the run, and says which name is unknown', () => {
    expect(errors(good, { ...ctx, defaultTrigger: undefined })).toEqual([expect.stringMatching(/^trigger: required/)]);
    expect(errors({ ...good, trigger: 'Nope' })).toEqual(['trigger: no trigger "Nope" in this workspace']);
  });

  it('refuses a form email field that differs from the lead, speaking of the email column', () => {
    const withWorkEmail: Trigger = {
      ...demo,
      fields: [
        ...demo.fields,
        { name: 'work_email', label: 'Work email', type: 'email', required: false, options: null },
      ],
    };
    const got = errors({ ...good, work_email: 'other@acme.example' }, { ...ctx, triggers: [withWorkEmail] });
    expect(got).toEqual([
      'work_email: "other@acme.example" differs from the email column ada@acme.example; leave it out (it is filled from the email column)',
    ]);
  });
});

describe('unknownRouteColumns', () => {
  it('lists the header columns no trigger of the workspace can use', () => {
    expect(unknownRouteColumns(['email', 'company', 'partner', 'slot', 'compnay'], [demo, partners])).toEqual([
      'compnay: unknown column; did you mean "company"?',
    ]);
  });
});
