/**
 * Serving the URLs the emulator issues: generated and erased videos (real MP4s), the
 * upstream dialect's last frame of a generated video (a 1x1 PNG), and signed asset URLs
 * (a redirect to the uploaded source — the emulator stores no uploads). A bad signature
 * is 403; an expired URL is 410 Gone.
 */
import type { EmulatorContext } from './context';
import { simpleError } from './errors';
import { header, type EmuRequest, type Reply } from './http';

/** A 1x1 PNG: the last frame of every generated test video. */
const LAST_FRAME_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

export function serveDownload(ctx: EmulatorContext, req: EmuRequest): Reply {
  const video = /^\/media\/(generated|erased)\/([^/]+)\.mp4$/.exec(req.path);
  const frame = /^\/media\/generated\/([^/]+)-last-frame\.png$/.exec(req.path);
  const asset = /^\/media\/assets\/([^/]+)$/.exec(req.path);
  if (!video && !frame && !asset) return simpleError(404, 'no such media');

  const check = ctx.signer.verify(req.path, req.query);
  if (!check.ok) return simpleError(403, 'URL signature is missing or invalid');
  if (ctx.clock.now() >= check.expiresAtMs) return simpleError(410, 'URL has expired');

  if (frame) {
    if (ctx.store.generation.get(frame[1])?.status !== 'succeeded') return simpleError(404, 'frame is not available');
    return {
      status: 200,
      headers: { 'content-type': 'image/png' },
      body: LAST_FRAME_PNG,
      meta: { resourceId: frame[1] },
    };
  }
  if (asset) {
    const rec = ctx.store.assets.get(asset[1]);
    if (!rec || rec.status !== 'Active') return simpleError(404, 'asset is not available');
    return { status: 302, headers: { location: rec.sourceUrl }, body: Buffer.alloc(0), meta: { resourceId: rec.Id } };
  }
  const kind = video![1] as 'generated' | 'erased';
  const id = video![2];
  const exists =
    kind === 'generated'
      ? ctx.store.generation.get(id)?.status === 'succeeded'
      : ctx.store.erase.get(id)?.status === 'SUCCESS';
  if (!exists) return simpleError(404, 'video is not available');
  return { ...ctx.media.serve(kind, req.method, header(req, 'range')), meta: { resourceId: id } };
}
