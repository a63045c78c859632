import { describe, expect, it } from 'vitest';
import { validateRescheduleRow } from '../../src/bulk/reschedule-rows.js';

const ctx = { zone: 'Europe/Berlin', now: new Date('2026-11-23T09:00:00Z') };
const meeting = '3f2a9c1e-8b4d-4e6f-9a1b-2c3d4e5f6a7b';

describe('validateRescheduleRow', () => {
  it('refuses a day without a time of day in the start column: nobody picks in a file', () => {
    const result = validateRescheduleRow({ meeting, start: '2026-12-02' }, ctx);
    expect(result).toMatchObject({ ok: false });
    expect(JSON.stringify(result)).toContain(
      'start: invalid value \\"2026-12-02\\": a day without a time of day (2026-12-02) is not one time',
    );
  });
  it('takes a meeting id or an email, and a start read in the row tz or the run zone', () => {
    expect(validateRescheduleRow({ meeting, start: '2026-12-02 10:00' }, ctx)).toEqual({
      ok: true,
      row: { meeting, start: new Date('2026-12-02T09:00:00Z') },
    });
    expect(
      validateRescheduleRow(
        { meeting: '', email: ' ada@acme.example ', start: '2026-12-02 10:00', tz: 'America/New_York' },
        ctx,
      ),
    ).toEqual({
      ok: true,
      row: { email: 'ada@acme.example', start: new Date('2026-12-02T15:00:00Z'), tz: 'America/New_York' },
    });
    expect(validateRescheduleRow({ meeting, start: '2026-12-02T10:00:00Z' }, ctx)).toMatchObject({
      ok: true,
      row: { start: new Date('2026-12-02T10:00:00Z') },
    });
  });

  it('wants exactly one of meeting and email', () => {
    expect(validateRescheduleRow({ meeting, email: 'ada@acme.example', start: '2026-12-02 10:00' }, ctx)).toEqual({
      ok: false,
      errors: ['meeting: give either a meeting id or an email in a row, not both (the email column is filled too)'],
    });
    expect(validateRescheduleRow({ meeting: '', email: '', start: '2026-12-02 10:00' }, ctx)).toEqual({
      ok: false,
      errors: ["meeting: required (a meeting id, or the lead's email in an email column)"],
    });
  });

  it('names the column of each problem', () => {
    const result = validateRescheduleRow({ meeting: 'm-42', start: '', tz: 'Nowhere', when: 'x' }, ctx);
    expect(result).toEqual({
      ok: false,
      errors: [
        'when: unknown column; columns: meeting, email, start, tz',
        'meeting: "m-42" is not a meeting id (a uuid such as 3f2a9c1e-8b4d-4e6f-9a1b-2c3d4e5f6a7b)',
        'tz: unknown time zone "Nowhere"; use an IANA zone name such as Europe/Berlin, America/New_York or UTC',
        'start: required (the new start time)',
      ],
    });
    expect(validateRescheduleRow({ email: 'nope', start: 'later', strat: '' }, ctx)).toEqual({
      ok: false,
      errors: [
        'strat: unknown column; did you mean "start"?',
        'email: "nope" is not a valid email address',
        expect.stringMatching(/^start: .*"later"/),
      ],
    });
  });

  it('refuses a start in the past', () => {
    expect(validateRescheduleRow({ meeting, start: '2026-11-20 10:00' }, ctx)).toEqual({
      ok: false,
      errors: [expect.stringMatching(/^start: 2026-11-20 10:00 .* is in the past$/)],
    });
  });
});
