import { describe, expect, it } from 'vitest';
import { makeRunId, makeStamp, makeToken, nowIso } from '../../src/log/time.js';

const STAMP = /^\d{8}T\d{12}Z$/;

describe('checkpoint/time', () => {
  it('makes stamps of the form YYYYMMDDTHHMMSSmicroZ', () => {
    expect(makeStamp()).toMatch(STAMP);
  });

  it('makes stamps of the current UTC time', () => {
    const before = new Date().toISOString();
    const stamp = makeStamp();
    const iso = `${stamp.slice(0, 4)}-${stamp.slice(4, 6)}-${stamp.slice(6, 8)}T${stamp.slice(9, 11)}:${stamp.slice(11, 13)}:${stamp.slice(13, 15)}.${stamp.slice(15, 18)}Z`;
    const after = new Date().toISOString();
    // A second of slack each way: the stamp reads the monotonic clock, not Date; a wrong zone or month is hours off.
    expect(Date.parse(iso)).toBeGreaterThanOrEqual(Date.parse(before) - 1_000);
    expect(Date.parse(iso)).toBeLessThanOrEqual(Date.parse(after) + 1_000);
  });

  it('makes strictly increasing stamps within one process, even many per microsecond', () => {
    const stamps = Array.from({ length: 20_000 }, () => makeStamp());
    for (let i = 1; i < stamps.length; i++) expect(stamps[i]! > stamps[i - 1]!).toBe(true);
    expect(stamps.every((s) => STAMP.test(s))).toBe(true);
  });

  it('makes run ids of a stamp and 6 hex digits', () => {
    expect(makeRunId()).toMatch(/^\d{8}T\d{12}Z-[0-9a-f]{6}$/);
  });

  it('makes run ids that sort in the order made', () => {
    const ids = Array.from({ length: 100 }, () => makeRunId());
    expect([...ids].sort()).toEqual(ids);
  });

  it('makes tokens of 6 lower-case letters or digits, never a dash', () => {
    const tokens = Array.from({ length: 1_000 }, () => makeToken());
    expect(tokens.every((t) => /^[0-9a-z]{6}$/.test(t))).toBe(true);
    expect(new Set(tokens).size).toBeGreaterThan(990);
  });

  it('gives ISO times for the at fields', () => {
    expect(nowIso()).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });
});
