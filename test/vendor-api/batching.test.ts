import { inferMediaType, planReviewBatches } from '../../src/vendor-api/batching';
import { RejectedError } from '../../src/vendor-api/errors';

const img = (i: number) => `https://cdn.example.com/a/${i}.jpg`;

function rejection(fn: () => unknown): RejectedError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(RejectedError);
    return err as RejectedError;
  }
  throw new Error('expected RejectedError');
}

describe('inferMediaType', () => {
  it.each([
    ['https://x.io/p.JPEG', 'Image'],
    ['http://x.io/p.tif?sig=abc.mp4', 'Image'],
    ['https://x.io/a/b.HEIF#frag.mp3', 'Image'],
    ['https://x.io/v.MoV', 'Video'],
    ['https://x.io/v.mp4?x=1', 'Video'],
    ['https://x.io/s.wav', 'Audio'],
    ['https://x.io/s.mp3', 'Audio'],
  ])('%s → %s', (url, type) => {
    expect(inferMediaType(url)).toEqual({ ok: true, type });
  });

  it.each([
    ['https://x.io/doc.pdf', /unsupported extension \.pdf/],
    ['https://x.io/noext', /no file extension/],
    ['https://x.io/dir.png/', /no file extension/],
    ['ftp://x.io/a.png', /http\(s\)/],
    ['data:image/png;base64,AAAA', /http\(s\)/],
    ['https://user:pw@x.io/a.png', /http\(s\)/],
    ['Asset://abc', /http\(s\)/],
  ])('%s is refused', (url, reason) => {
    const r = inferMediaType(url);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toMatch(reason);
  });
});

describe('planReviewBatches', () => {
  it('splits into batches of at most 50 of one type, keeping order and indexes', () => {
    const urls = [...Array.from({ length: 120 }, (_, i) => img(i))];
    urls.splice(3, 0, 'https://x.io/v.mp4');
    urls.splice(60, 0, 'https://x.io/s.mp3');
    const batches = planReviewBatches(urls);
    expect(batches.map((b) => [b.assetType, b.urls.length])).toEqual([
      ['Image', 50],
      ['Image', 50],
      ['Image', 20],
      ['Video', 1],
      ['Audio', 1],
    ]);
    for (const b of batches) {
      expect(b.urls.length).toBeLessThanOrEqual(50);
      b.indexes.forEach((idx, k) => expect(urls[idx]).toBe(b.urls[k]));
    }
    expect(batches.flatMap((b) => b.indexes).sort((a, b) => a - b)).toEqual(urls.map((_, i) => i));
  });

  it('gives no batch for no URLs and honours maxPerBatch', () => {
    expect(planReviewBatches([])).toEqual([]);
    expect(planReviewBatches([img(1), img(2), img(3)], { maxPerBatch: 2 }).map((b) => b.urls.length)).toEqual([2, 1]);
    expect(rejection(() => planReviewBatches([img(1)], { maxPerBatch: 51 })).field).toBe('maxPerBatch');
  });

  it('names the index of an unsupported or non-http URL', () => {
    const bad = rejection(() => planReviewBatches([img(0), img(1), 'https://x.io/a.gifv']));
    expect(bad.field).toBe('urls[2]');
    expect(bad.message).toMatch(/review\.plan: urls\[2\] has unsupported extension \.gifv/);
    expect(rejection(() => planReviewBatches(['file:///etc/passwd.png'])).field).toBe('urls[0]');
  });

  it('requires every URL to match assetType when given', () => {
    expect(planReviewBatches(['https://x.io/a.mp4'], { assetType: 'Video' })).toHaveLength(1);
    const err = rejection(() => planReviewBatches(['https://x.io/a.mp4', img(1)], { assetType: 'Video' }));
    expect(err.field).toBe('urls[1]');
    expect(err.message).toMatch(/is Image, expected Video/);
  });
});
