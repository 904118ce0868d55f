import { busiestWindow, natural429s, WindowCollector } from '../../tools/bench/rate-window';

describe('busiestWindow', () => {
  test('nothing: 0', () => {
    expect(busiestWindow([])).toEqual({ count: 0, startMs: NaN });
  });

  test('calls exactly 1 s apart never share a window, as the vendor counts (t − 1000, t]', () => {
    const every100 = Array.from({ length: 11 }, (_, i) => i * 100); // 0 … 1000
    expect(busiestWindow(every100).count).toBe(10);
    expect(busiestWindow([...every100.slice(0, 10), 999]).count).toBe(11);
  });

  test('finds the burst wherever it is, in any order', () => {
    const spread = [0, 300, 600, 900, 1200, 1500];
    const burst = [5000, 5001, 5002, 5003, 5004, 5999];
    expect(busiestWindow([...burst, ...spread].reverse())).toEqual({ count: 6, startMs: 5000 });
    expect(busiestWindow(spread).count).toBe(4);
    expect(busiestWindow(spread, 2000).count).toBe(6);
  });
});

describe('WindowCollector', () => {
  const at = (ms: number) => new Date(ms).toISOString();

  test('counts one endpoint, per caller: the vendor limits each access token on its own', () => {
    const c = new WindowCollector('assets.GetAsset');
    for (let i = 0; i < 8; i++) {
      c.add({ endpoint: 'assets.GetAsset', at: at(1_000 + i * 10), principal: 'user#1' });
      c.add({ endpoint: 'assets.GetAsset', at: at(1_000 + i * 10), principal: 'user#2' });
      c.add({ endpoint: 'assets.ListAssets', at: at(1_000 + i), principal: 'user#1' });
    }
    c.add({ endpoint: 'assets.GetAsset', at: at(1_500), principal: 'user#2' });
    expect(c.byCaller()).toEqual({ 'user#1': { count: 8, startMs: 1_000 }, 'user#2': { count: 9, startMs: 1_000 } });
    expect(c.worst()).toEqual({ count: 9, startMs: 1_000, caller: 'user#2' });
  });
});

test('natural 429s: all 429s minus the injected ones, per endpoint', () => {
  expect(
    natural429s({
      rateLimited429: { 'assets.GetAsset': 5, 'review.get': 2, 'generation.create': 3 },
      faultsByEndpoint: { 'assets.GetAsset': { rateLimit429: 3 }, 'generation.create': { rateLimit429: 3 } },
    }),
  ).toEqual({ 'assets.GetAsset': 2, 'review.get': 2 });
});
