/** Building blocks shared by the per-interface schemas. Pure: workflows may import. */
import { z } from 'zod';

const INLINE_MEDIA = /^data:/i;
const ASSET_SCHEME = /^asset:\/\//i;

const NOT_HTTP = 'must be an http(s) URL';
export const NOT_INLINE = 'inline/base64 media is not supported; use a public http(s) URL or an Asset:// address';

/** An http(s) URL taken apart, or why it is not one the vendor could fetch. */
export type HttpUrlParts =
  { ok: true; scheme: 'http' | 'https'; host: string; port?: number; path: string } | { ok: false; reason: string };

/** Host name characters (ASCII; an international name is written in its xn-- form). */
const HOST_NAME = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*\.?$/;
const HOST_IPV6 = /^\[[0-9A-Fa-f:.]+\]$/;

function splitAuthority(authority: string): { host: string; port?: number } | { reason: string } {
  const m = /^(\[[^\]]*\]|[^:]*)(?::(.*))?$/.exec(authority);
  if (!m || !m[1]) return { reason: 'has no host' };
  const [, host, port] = m;
  if (!HOST_IPV6.test(host) && !HOST_NAME.test(host)) {
    return {
      reason: /[^\x20-\x7e]/.test(host)
        ? 'has a non-ASCII host: write it in its ASCII (xn--) form'
        : 'has an invalid host',
    };
  }
  if (port === undefined || port === '') return { host };
  if (!/^\d{1,5}$/.test(port) || Number(port) < 1 || Number(port) > 65_535)
    return { reason: 'has an invalid port (1..65535)' };
  return { host, port: Number(port) };
}

/**
 * Takes an http(s) URL apart without the URL global (workflows use this too). Refuses what
 * the vendor could not fetch or what would leak: credentials in the authority (they end up
 * in logs and history), whitespace, backslashes, a missing or malformed host or port.
 */
export function parseHttpUrl(text: string): HttpUrlParts {
  if (INLINE_MEDIA.test(text)) return { ok: false, reason: NOT_INLINE };
  const m = /^(https?):\/\/([^/?#]*)([\s\S]*)$/i.exec(text);
  if (!m) return { ok: false, reason: NOT_HTTP };
  if (/[\s\x00-\x1f\x7f]/.test(text))
    return { ok: false, reason: 'must not contain spaces or control characters (percent-encode them)' };
  if (text.includes('\\')) return { ok: false, reason: 'must not contain a backslash' };
  const [, scheme, authority, path] = m;
  if (authority.includes('@')) return { ok: false, reason: 'must not carry a user name or password' };
  const a = splitAuthority(authority);
  if ('reason' in a) return { ok: false, reason: a.reason };
  return { ok: true, scheme: scheme.toLowerCase() as 'http' | 'https', ...a, path };
}

/** Why a string is not an Asset:// address (the scheme in any case), or undefined. */
export function assetAddressProblem(text: string): string | undefined {
  if (!ASSET_SCHEME.test(text)) return 'must be an Asset:// address';
  const id = text.slice('asset://'.length);
  if (id === '') return 'Asset:// needs an asset id after it';
  if (/[\s\x00-\x1f\x7f]/.test(id)) return 'must not contain spaces or control characters';
  return undefined;
}

/** Why a string is not generation media (http(s) URL or Asset:// address), or undefined. */
export function mediaRefProblem(text: string): string | undefined {
  if (ASSET_SCHEME.test(text)) return assetAddressProblem(text);
  const url = parseHttpUrl(text);
  if (url.ok) return undefined;
  return url.reason === NOT_HTTP ? 'must be a public http(s) URL or an Asset:// address' : url.reason;
}

/** A string schema checked by `problem`, which names what is wrong (one issue at most). */
export function checkedString(problem: (s: string) => string | undefined) {
  return z.string().superRefine((s, ctx) => {
    const reason = problem(s);
    if (reason) ctx.addIssue({ code: 'custom', message: reason });
  });
}

/** A public http(s) URL (callbacks, review and asset uploads, erase input). */
export const HttpUrlSchema = checkedString((s) => {
  const url = parseHttpUrl(s);
  return url.ok ? undefined : url.reason;
});

/** Generation media: a public http(s) URL or an Asset:// address (`asset://` too: docs/vendor-contract.md). */
export const MediaRefSchema = checkedString(mediaRefProblem);

export const NonEmptyString = z.string().min(1, 'must not be empty');
