/**
 * What the README and the manual (docs/) say about themselves holds together: a newcomer copies
 * their samples as they are.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
/** The README and every page of the manual, as one text: the claims hold wherever they moved. */
const README = [
  read('README.md'),
  ...readdirSync(new URL('../../docs/', import.meta.url))
    .filter((f) => f.endsWith('.md'))
    .map((f) => read(`docs/${f}`)),
].join('\n');
const SLOTS_PAGE = read('docs/slots-booking-rescheduling.md');

describe('README claims', () => {
  it('keeps the README a five-minute guide (at most 400 lines) that points to the manual', () => {
    expect(read('README.md').split('\n').length).toBeLessThanOrEqual(400);
    expect(read('README.md')).toContain('](docs/README.md)');
  });
  it('runs schedctl from the registry nowhere while Install says it is not on the registry yet', () => {
    expect(read('README.md')).toContain('not on the npm registry yet');
    // `npx -y schedctl` would fetch a package that does not exist.
    expect(README).not.toMatch(/npx -y schedctl/);
  });
  it('shows no placeholder command in an error sample', () => {
    expect(README).not.toContain('`schedctl ...`');
    expect(README).not.toContain('`schedctl …`');
  });
  it('says smoke --book cannot be cancelled through the API, not "cancel it"', () => {
    expect(README).not.toMatch(/cancel (it|the meeting it prints) afterwards/);
  });
  it('points the time section to the one grammar table (docs/time.md)', () => {
    const start = SLOTS_PAGE.indexOf('## Time input');
    expect(start).toBeGreaterThanOrEqual(0);
    const section = SLOTS_PAGE.slice(start, SLOTS_PAGE.indexOf('## `schedctl slots'));
    expect(section).toContain('](time.md)'); // docs/time.md, beside this page
    expect(section.split('\n').length).toBeLessThan(20);
  });
});
