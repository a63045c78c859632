import { describe, expect, it } from 'vitest';
import { displayZoneOf, humanTimes } from '../../src/ui/human-times.js';
import { systemZone } from '../../src/domain/time.js';

describe('humanTimes: times in messages for people', () => {
  it("keeps a tool argument's value to pass back (start: …) as it is, and reads the rest", () => {
    expect(humanTimes('free: 2026-12-02T20:00:00.000Z (start: 2026-12-02T20:00:00.000Z)', 'UTC')).toBe(
      'free: 2026-12-02 20:00 UTC (start: 2026-12-02T20:00:00.000Z)',
    );
  });

  it('shows an instant in the zone, as the tables do', () => {
    expect(humanTimes('2026-12-02T20:00:00.000Z is not available', 'Europe/Berlin')).toBe(
      '2026-12-02 21:00 GMT+1 is not available',
    );
    expect(humanTimes('free: 2026-11-27T19:30:00Z, then 2026-11-27T21:30+01:00', 'UTC')).toBe(
      'free: 2026-11-27 19:30 UTC, then 2026-11-27T21:30+01:00',
    );
    // The offset is what the message is about: kept, so the hint can be pasted.
    const ambiguous = 'ambiguous in Europe/Berlin (clocks go back): 2030-10-27T02:30+02:00 or 2030-10-27T02:30+01:00';
    expect(humanTimes(ambiguous, 'UTC')).toBe(ambiguous);
  });
  it('keeps a value that follows a flag (a command to paste), and text without instants', () => {
    const hint = 'schedctl book intro --start 2026-12-02T20:00:00.000Z --slot="2026-12-02T20:00:00Z"';
    expect(humanTimes(hint, 'Europe/Berlin')).toBe(hint);
    expect(humanTimes('free: 2026-11-27T19:30:00.000Z   --start 2026-11-27T19:30:00.000Z', 'UTC')).toBe(
      'free: 2026-11-27 19:30 UTC   --start 2026-11-27T19:30:00.000Z',
    );
    expect(humanTimes('on 2026-12-02, id 2026-12-02T20', 'UTC')).toBe('on 2026-12-02, id 2026-12-02T20');
  });
  it('reads the zone from --tz, and falls back to the system zone', () => {
    expect(displayZoneOf(['reschedule', 'x', '--tz', 'Europe/Berlin'])).toBe('Europe/Berlin');
    expect(displayZoneOf(['route', '--tz=UTC'])).toBe('UTC');
    expect(displayZoneOf(['route', '--tz', 'Nowhere/Else'])).toBe(systemZone());
    expect(displayZoneOf(['route'])).toBe(systemZone());
  });
});
