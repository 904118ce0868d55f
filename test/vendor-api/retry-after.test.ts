import { parseRetryAfter } from '../../src/vendor-api/retry-after';

const NOW = Date.parse('Sun, 06 Nov 1994 08:49:30 GMT');

describe('parseRetryAfter', () => {
  it('reads delta-seconds', () => {
    expect(parseRetryAfter('0')).toBe(0);
    expect(parseRetryAfter('1')).toBe(1000);
    expect(parseRetryAfter(' 120 ')).toBe(120_000);
    expect(parseRetryAfter(['2', '9'])).toBe(2000);
  });

  it('reads the three HTTP-date forms relative to now', () => {
    expect(parseRetryAfter('Sun, 06 Nov 1994 08:49:37 GMT', NOW)).toBe(7000);
    expect(parseRetryAfter('Sunday, 06-Nov-94 08:49:37 GMT', NOW)).toBe(7000);
    expect(parseRetryAfter('Sun Nov  6 08:49:37 1994', NOW)).toBe(7000);
  });

  it('clamps a past date to 0', () => {
    expect(parseRetryAfter('Sun, 06 Nov 1994 08:49:00 GMT', NOW)).toBe(0);
  });

  it('gives undefined for missing or junk values', () => {
    expect(parseRetryAfter(undefined)).toBeUndefined();
    expect(parseRetryAfter('')).toBeUndefined();
    expect(parseRetryAfter('-1')).toBeUndefined();
    expect(parseRetryAfter('1.5')).toBeUndefined();
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter('2026-01-01T00:00:00Z')).toBeUndefined();
    expect(parseRetryAfter('Mon, 99 Foo 2026 xx GMT')).toBeUndefined();
  });
});
