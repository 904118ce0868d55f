import { median, percentile, ratio, summarize } from '../../tools/bench/stats';

describe('percentile (nearest rank)', () => {
  const hundred = Array.from({ length: 100 }, (_, i) => i + 1); // 1..100

  test('is always one of the samples, whatever their order', () => {
    const shuffled = [...hundred].reverse();
    expect(percentile(shuffled, 50)).toBe(50);
    expect(percentile(shuffled, 95)).toBe(95);
    expect(percentile(shuffled, 99)).toBe(99);
    expect(percentile(shuffled, 100)).toBe(100);
    expect(percentile(shuffled, 0)).toBe(1);
  });

  test('small samples: p99 of 10 is the largest; p50 of 4 is the 2nd', () => {
    expect(percentile([5, 1, 9, 3, 7, 2, 8, 4, 6, 10], 99)).toBe(10);
    expect(percentile([40, 10, 30, 20], 50)).toBe(20);
    expect(percentile([7], 95)).toBe(7);
  });

  test('empty gives NaN; p outside 0..100 is refused', () => {
    expect(percentile([], 50)).toBeNaN();
    expect(() => percentile([1], 101)).toThrow(RangeError);
    expect(() => percentile([1], -1)).toThrow(RangeError);
  });

  test('does not reorder its input', () => {
    const input = [3, 1, 2];
    percentile(input, 50);
    expect(input).toEqual([3, 1, 2]);
  });
});

describe('summarize', () => {
  test('min, percentiles, max and mean', () => {
    expect(summarize([4, 1, 3, 2])).toEqual({ n: 4, min: 1, p50: 2, p95: 4, p99: 4, max: 4, mean: 2.5 });
  });
  test('empty: n 0 and NaN elsewhere', () => {
    const s = summarize([]);
    expect(s.n).toBe(0);
    expect(s.p50).toBeNaN();
  });
});

describe('ratio', () => {
  test('a / b, null when it has no meaning', () => {
    expect(ratio(3, 2)).toBe(1.5);
    expect(ratio(1, 0)).toBeNull();
    expect(ratio(NaN, 2)).toBeNull();
  });
});

test('median: the middle run, or the mean of the two middle ones (two rounds weigh alike)', () => {
  expect(median([3, 1, 2])).toBe(2);
  expect(median([1.77, 0.59])).toBeCloseTo(1.18);
  expect(median([])).toBeNaN();
});
