import { describe, expect, it } from 'vitest';
import {
  formatDuration,
  formatPlan,
  minDurationSeconds,
  planSummary,
  RESCHEDULE_COST,
  ROUTE_COST,
} from '../../src/bulk/plan.js';

describe('planSummary', () => {
  it('counts a route file as one triggers list plus fire, slots and book per valid row (the spec four-request flow)', () => {
    const plan = planSummary({
      rows: 42,
      invalid: 2,
      requestsPerRow: ROUTE_COST.perRow,
      requestsPerFile: ROUTE_COST.perFile,
      ratePerMinute: 30,
    });
    expect(plan).toEqual({ rows: 42, valid: 40, invalid: 2, requests: 121, minDurationSeconds: 240 });
    expect(formatPlan(plan, 30)).toBe('42 rows (2 invalid), 121 requests, at least 4 min at 30 requests/min');
  });

  it('counts one request per reschedule row', () => {
    const plan = planSummary({
      rows: 1,
      invalid: 0,
      requestsPerRow: RESCHEDULE_COST.perRow,
      requestsPerFile: RESCHEDULE_COST.perFile,
      ratePerMinute: 30,
    });
    expect(plan).toEqual({ rows: 1, valid: 1, invalid: 0, requests: 1, minDurationSeconds: 0 });
    expect(formatPlan(plan, 30)).toBe('1 row, 1 request, at least 0 s at 30 requests/min');
  });

  it('bounds the duration by whole windows: a full budget goes at once, each further batch a minute later', () => {
    expect(minDurationSeconds(0, 30)).toBe(0);
    expect(minDurationSeconds(30, 30)).toBe(0);
    expect(minDurationSeconds(31, 30)).toBe(60);
    expect(minDurationSeconds(160, 30)).toBe(300);
    expect(minDurationSeconds(10, 0)).toBe(0);
  });

  it('formats durations for people', () => {
    expect(formatDuration(0)).toBe('0 s');
    expect(formatDuration(45)).toBe('45 s');
    expect(formatDuration(300)).toBe('5 min');
    expect(formatDuration(320)).toBe('5 min 20 s');
    expect(formatDuration(3900)).toBe('1 h 5 min');
    expect(formatDuration(7200)).toBe('2 h');
  });
});

describe('minDurationSeconds with the shared budget already in use', () => {
  it('never estimates 0 s while the budget is spent: the requests wait for room in the window', () => {
    const spent = Array.from({ length: 30 }, () => 10_000); // 30 requests sent 10 s ago
    expect(minDurationSeconds(3, 30, spent)).toBe(50);
    expect(minDurationSeconds(3, 30, [])).toBe(0);
    // Half the budget used 30 s ago: 15 go now, the next 15 when those leave the window.
    const half = Array.from({ length: 15 }, () => 30_000);
    expect(minDurationSeconds(15, 30, half)).toBe(0);
    expect(minDurationSeconds(16, 30, half)).toBe(30);
    expect(
      planSummary({ rows: 1, invalid: 0, requestsPerRow: 3, ratePerMinute: 30, inUseMsAgo: spent }).minDurationSeconds,
    ).toBe(50);
  });
});
