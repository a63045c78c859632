import { describe, expect, it } from 'vitest';
import { leadFields } from '../../src/domain/lead-fields.js';

describe('leadFields', () => {
  it('names every lead field given, as the book request spells it', () => {
    expect(
      leadFields({
        firstName: 'Ada',
        lastName: 'Lovelace',
        phone: '+44 20 7946 0000',
        guests: ['b@acme.example', 'c@acme.example'],
        leadTimezone: 'Europe/London',
      }),
    ).toEqual({
      guestFirstName: 'Ada',
      guestLastName: 'Lovelace',
      guestPhone: '+44 20 7946 0000',
      guestEmails: ['b@acme.example', 'c@acme.example'],
      leadTimezone: 'Europe/London',
    });
  });

  it('leaves out what was not given, and empty values, rather than sending them', () => {
    expect(leadFields({ guests: [] })).toEqual({});
    const fields = leadFields({ firstName: '', lastName: undefined, phone: '', guests: [], leadTimezone: '' });
    expect(Object.keys(fields)).toEqual([]);
    expect(leadFields({ lastName: 'Hopper' })).toEqual({ guestLastName: 'Hopper' });
  });
});
