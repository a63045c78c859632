import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { invocation } from '../../src/run/sandbox.js';

describe("the sandbox banner's way to run schedctl from here", () => {
  const checkout = join(process.cwd(), 'bin', 'schedctl.js');
  it('is schedctl when installed, node and the bin in a checkout', () => {
    expect(invocation(undefined)).toBe('schedctl');
    expect(invocation('/usr/lib/node_modules/schedctl/bin/schedctl.js')).toBe('schedctl');
    expect(invocation(checkout, '/usr/bin/node')).toBe('node bin/schedctl.js');
  });
  it("names the checkout's own Node as it ran, where the PATH's node may be older", () => {
    const node = join(process.cwd(), 'node_modules', 'node', 'bin', 'node');
    expect(invocation(checkout, node)).toBe('node_modules/node/bin/node bin/schedctl.js');
    expect(invocation(checkout, '/elsewhere/with space/node_modules/.bin/node')).toMatch(
      /^"[^"]+node" bin\/schedctl\.js$/,
    );
  });
});
