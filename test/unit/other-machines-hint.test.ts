import { describe, expect, it } from 'vitest';
import { eventLabel, otherMachinesHint } from '../../src/run/meetings/records.js';

const backed = (kind: string) => ({ backend: async () => ({ kind }) }) as never;

describe("where other machines' meetings are", () => {
  it('names the team state when the record is this machine’s, and says so when it is the team’s', async () => {
    expect(await otherMachinesHint(backed('local'))).toContain('team state (docs/team-state.md');
    expect(await otherMachinesHint(backed('local'), true)).toBe(
      "other machines' meetings are seen through a team state (docs/team-state.md)",
    );
    expect(await otherMachinesHint(backed('postgres'))).toContain("the team state's record holds every machine's");
    expect(await otherMachinesHint(backed('postgres'), true)).toContain("the team state's record");
    const failing = { backend: async () => Promise.reject(new Error('down')) } as never;
    expect(await otherMachinesHint(failing)).toContain('docs/team-state.md');
  });
  it('cuts a scheduling link id in the table', () => {
    const link = '3f2a9c1e-8b4d-4e6f-9a1b-2c3d4e5f6a7b';
    expect(eventLabel({ event: link, eventId: '11111111-1111-4111-8111-111111111111' })).toBe('link 3f2a9c1e…');
    expect(eventLabel({ event: 'intro-call', eventId: link })).toBe('intro-call');
  });
});
