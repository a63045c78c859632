/**
 * What the README says about itself holds together: a newcomer copies its samples as they are.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

describe('README claims', () => {
  it('runs schedctl from the registry nowhere while Install says it is not on the registry yet', () => {
    expect(README).toContain('not on the npm registry yet');
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
    const section = README.slice(README.indexOf('### Time input'), README.indexOf('### `schedctl slots'));
    expect(section).toContain('(docs/time.md)');
    expect(section.split('\n').length).toBeLessThan(20);
  });
});
