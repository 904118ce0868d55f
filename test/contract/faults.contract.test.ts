/**
 * Every emulator fault class maps to the client error class the workflows branch on:
 * the client cannot see whether a reset came before or after the vendor acted, so both
 * are AmbiguousError; the emulator's records show what really happened.
 */
import {
  AmbiguousError,
  NotSentError,
  RateLimitedError,
  UpstreamFailedError,
  type VendorError,
} from '../../src/vendor-api/errors';
import type { VendorClient } from '../../src/vendor-api/client';
import { closedPortUrl } from '../support/http-server';
import { failure, media, useEmulator } from './harness';

const h = useEmulator();

/** One create per interface, with the emulator's fault key and a count of what it made. */
const creates: [string, string, (c: VendorClient) => Promise<unknown>, () => number][] = [
  [
    'generation.create',
    'generation.create',
    (c) => c.generation.create({ model: 'm', content: [{ type: 'text', text: 'x' }] }),
    () => h.emu.inspect().generationTasks.length,
  ],
  [
    'review.submitAsync',
    'review.async',
    (c) => c.review.submitAsync({ images: [media('a.png')] }),
    () => h.emu.inspect().reviewTasks.length,
  ],
  [
    'assets.CreateAssetGroup',
    'assets.CreateAssetGroup',
    (c) => c.assets.createAssetGroup({ Name: 'g' }),
    () => h.emu.inspect().groups.length - 4,
  ],
  [
    'assets.CreateAsset',
    'assets.CreateAsset',
    async (c) => {
      const { AssetGroups } = await c.assets.listAssetGroups();
      return c.assets.createAsset({ GroupId: AssetGroups[0].Id, URL: media('a.png') });
    },
    () => h.emu.inspect().assets.length,
  ],
];

async function expectClass(
  p: Promise<unknown>,
  cls: abstract new (...a: never[]) => VendorError,
): Promise<VendorError> {
  const err = await failure(p);
  expect(err).toBeInstanceOf(cls);
  return err;
}

describe.each(creates)('%s', (endpoint, key, create, made) => {
  it('resetBeforeCreate → AmbiguousError (nothing was made)', async () => {
    h.emu.setFaults({ [key]: { resetBeforeCreate: { next: 1 } } });
    const err = await expectClass(create(h.client), AmbiguousError);
    expect(err).toMatchObject({ endpoint, retryable: false });
    expect(made()).toBe(0);
  });

  it('resetAfterCreate → AmbiguousError (it was made)', async () => {
    h.emu.setFaults({ [key]: { resetAfterCreate: { next: 1 } } });
    await expectClass(create(h.client), AmbiguousError);
    expect(made()).toBe(1);
  });

  it('error500AfterCreate → AmbiguousError with status 500 (it was made)', async () => {
    h.emu.setFaults({ [key]: { error500AfterCreate: { next: 1 } } });
    const err = await expectClass(create(h.client), AmbiguousError);
    expect(err.status).toBe(500);
    expect(made()).toBe(1);
  });

  it('delayAfterCreate → AmbiguousError via the headers timeout (it was made)', async () => {
    h.emu.setFaults({ [key]: { delayAfterCreate: { next: 1, ms: 3_000 } } });
    const quick = h.make({ timeouts: { headersMs: 200 } });
    const err = await expectClass(create(quick), AmbiguousError);
    expect(err.message).toMatch(/timed out waiting for response headers/);
    expect(made()).toBe(1);
  });

  it('rateLimit429 → RateLimitedError with retryAfterMs (nothing was made)', async () => {
    h.emu.setFaults({ [key]: { rateLimit429: { next: 1, retryAfterSeconds: 7 } } });
    const err = await expectClass(create(h.client), RateLimitedError);
    expect(err).toMatchObject({ status: 429, retryAfterMs: 7_000, retryable: true });
    expect(made()).toBe(0);
  });
});

describe('upstream502', () => {
  it('asset management → retryable UpstreamFailedError', async () => {
    // (ListAssetGroups is served from local data, so the emulator refuses a 502 fault there.)
    h.emu.setFaults({ 'assets.ListAssets': { upstream502: { next: 1 } } });
    const err = await expectClass(h.client.assets.listAssets(), UpstreamFailedError);
    expect(err.retryable).toBe(true);
  });

  it('erase → UpstreamFailedError that says to use another video URL', async () => {
    h.emu.setFaults({ 'erase.create': { upstream502: { next: 1 } } });
    const err = await expectClass(h.client.erase.create({ video_url: media('v.mp4') }), UpstreamFailedError);
    expect(err).toMatchObject({ retryable: false, field: 'video_url' });
  });

  it('generation and review (502 undocumented there) → AmbiguousError', async () => {
    h.emu.setFaults({
      'generation.create': { upstream502: { next: 1 } },
      'review.async': { upstream502: { next: 1 } },
    });
    await expectClass(
      h.client.generation.create({ model: 'm', content: [{ type: 'text', text: 'x' }] }),
      AmbiguousError,
    );
    await expectClass(h.client.review.submitAsync({ images: [media('a.png')] }), AmbiguousError);
  });
});

describe('reads and transport', () => {
  it('a reset on a query is AmbiguousError but retryable (reads are idempotent)', async () => {
    const { id } = await h.client.generation.create({ model: 'm', content: [{ type: 'text', text: 'x' }] });
    h.emu.setFaults({ 'generation.get': { resetAfterCreate: { next: 1 } } });
    const err = await expectClass(h.client.generation.get(id), AmbiguousError);
    expect(err.retryable).toBe(true);
    await expect(h.client.generation.get(id)).resolves.toMatchObject({ id });
  });

  it("'*' faults hit every endpoint, and skip/next count calls", async () => {
    h.emu.setFaults({ '*': { rateLimit429: { skip: 1, next: 1 } } });
    await h.client.assets.listAssetGroups();
    await expectClass(h.client.assets.listAssets(), RateLimitedError);
    await h.client.assets.listAssets();
  });

  it('closed port → NotSentError (retryable even for a create)', async () => {
    const url = await closedPortUrl();
    const c = h.make({ baseUrl: url, identityUrl: url });
    for (const p of [
      c.generation.create({ model: 'm', content: [{ type: 'text', text: 'x' }] }),
      c.erase.create({ video_url: media('v.mp4') }),
      c.assets.createAssetGroup({ Name: 'g' }),
      c.review.submitAsync({ images: [media('a.png')] }),
    ]) {
      const err = await expectClass(p, NotSentError);
      expect(err.retryable).toBe(true);
    }
  });
});
