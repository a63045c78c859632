/** Issue 46 item 3: the one bound of an MCP result: lists paged (pageOf), text cut at a line with what was left out. */
import { describe, expect, it } from 'vitest';
import { boundedText, TEXT_MAX } from '../../src/mcp/call.js';
import { PAGE, pageOf } from '../../src/mcp/output.js';

describe('pageOf', () => {
  const all = Array.from({ length: 230 }, (_, i) => i);
  it('the default page, the next offset, the last page and a page past the end', () => {
    expect(pageOf(all)).toMatchObject({ total: 230, offset: 0, nextOffset: PAGE.default });
    expect(pageOf(all).items).toHaveLength(PAGE.default);
    expect(pageOf(all, 200, 50)).toEqual({ items: all.slice(200), total: 230, offset: 200, nextOffset: null });
    expect(pageOf(all, 300)).toEqual({ items: [], total: 230, offset: 300, nextOffset: null });
  });
  it('never more than PAGE.max, whatever limit says', () => {
    expect(pageOf(all, 0, 1000).items).toHaveLength(PAGE.max);
  });
});

describe('boundedText', () => {
  it('keeps a short text; cuts a long one at a line break, saying how much was left out', () => {
    expect(boundedText('a\nb')).toBe('a\nb');
    const line = `${'x'.repeat(99)}\n`;
    const long = line.repeat(2000);
    const cut = boundedText(long);
    expect(cut.length).toBeLessThanOrEqual(TEXT_MAX + 100);
    expect(cut).toMatch(/x\n… \d+ more characters left out \(structuredContent holds the whole result\)$/);
    const kept = cut.slice(0, cut.lastIndexOf('\n…'));
    expect(long.length - kept.length).toBe(Number(/… (\d+) more/.exec(cut)![1]));
  });
});
