/**
 * Signed, expiring media URLs: `?expires=<unix seconds>&signature=<hex HMAC-SHA256>`
 * over the path and the expiry. The key is random per emulator instance, so a URL is
 * only ever valid on the emulator that issued it.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export type SignatureCheck = { ok: true; expiresAtMs: number } | { ok: false; reason: 'unsigned' | 'bad-signature' };

export class UrlSigner {
  private readonly key = randomBytes(32);

  private mac(path: string, expires: string): string {
    return createHmac('sha256', this.key).update(`${path}\n${expires}`).digest('hex');
  }

  /** The query string (without '?') that signs `path` until expiresAtMs. */
  sign(path: string, expiresAtMs: number): string {
    const expires = String(Math.floor(expiresAtMs / 1000));
    return `expires=${expires}&signature=${this.mac(path, expires)}`;
  }

  /** Checks the signature only; expiry is the caller's call (it owns the clock). */
  verify(path: string, query: URLSearchParams): SignatureCheck {
    const expires = query.get('expires');
    const signature = query.get('signature');
    if (!expires || !signature) return { ok: false, reason: 'unsigned' };
    if (!/^\d+$/.test(expires) || !/^[0-9a-f]{64}$/.test(signature)) return { ok: false, reason: 'bad-signature' };
    const good = Buffer.from(this.mac(path, expires), 'hex');
    if (!timingSafeEqual(good, Buffer.from(signature, 'hex'))) return { ok: false, reason: 'bad-signature' };
    return { ok: true, expiresAtMs: Number(expires) * 1000 };
  }
}
