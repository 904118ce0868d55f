/**
 * URL rules shared by the interfaces: what counts as a public http(s) URL, and which
 * media type a URL's extension implies (the vendor's review table, also used by CreateAsset).
 */
import { isIP } from 'node:net';

export type MediaType = 'Image' | 'Video' | 'Audio';

const EXTENSIONS: Record<MediaType, readonly string[]> = {
  Image: ['.jpeg', '.jpg', '.png', '.webp', '.bmp', '.tiff', '.tif', '.gif', '.heic', '.heif'],
  Video: ['.mp4', '.mov'],
  Audio: ['.wav', '.mp3'],
};

export function parseUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

function isPrivateIPv4(host: string): boolean {
  const [a, b] = host.split('.').map(Number) as [number, number];
  return (
    a === 0 ||
    a === 10 ||
    a === 127 ||
    (a === 169 && b === 254) ||
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) ||
    (a === 100 && b >= 64 && b <= 127) ||
    a >= 224
  );
}

function isPrivateIPv6(host: string): boolean {
  const h = host.toLowerCase();
  return (
    h === '::' ||
    h === '::1' ||
    h.startsWith('fc') ||
    h.startsWith('fd') ||
    h.startsWith('fe80') ||
    h.startsWith('::ffff:')
  );
}

/**
 * The vendor downloads media itself, so it needs an address the internet can reach:
 * http(s), a host with a dot or a public IP, not loopback/private/link-local.
 * `selfHosts` are this emulator's own host:port values — its generated videos count
 * as public, as the vendor's own CDN would.
 */
export function isPublicHttpUrl(text: string, selfHosts: ReadonlySet<string> = new Set()): boolean {
  const url = parseUrl(text);
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) return false;
  if (selfHosts.has(url.host)) return true;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!host) return false;
  const ipVersion = isIP(host);
  if (ipVersion === 4) return !isPrivateIPv4(host);
  if (ipVersion === 6) return !isPrivateIPv6(host);
  const lower = host.toLowerCase();
  if (
    lower === 'localhost' ||
    lower.endsWith('.localhost') ||
    lower.endsWith('.local') ||
    lower.endsWith('.internal')
  ) {
    return false;
  }
  return lower.includes('.');
}

/** A callback target only needs to be an absolute http(s) URL: receivers run locally. */
export function isHttpUrl(text: string): boolean {
  const url = parseUrl(text);
  return !!url && (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
}

/** Media type implied by the URL path's extension (query and fragment ignored). */
export function mediaTypeOf(text: string): MediaType | undefined {
  const url = parseUrl(text);
  const path = (url ? url.pathname : text).toLowerCase();
  for (const [type, exts] of Object.entries(EXTENSIONS) as [MediaType, readonly string[]][]) {
    if (exts.some((ext) => path.endsWith(ext))) return type;
  }
  return undefined;
}

/** Image | Video | Audio, case-insensitively (CreateAsset accepts lowercase). */
export function normalizeMediaType(value: string): MediaType | undefined {
  const lower = value.toLowerCase();
  return (Object.keys(EXTENSIONS) as MediaType[]).find((t) => t.toLowerCase() === lower);
}

/** Last path segment, for default asset names. */
export function baseName(text: string): string {
  const url = parseUrl(text);
  const segments = (url ? url.pathname : text).split('/').filter(Boolean);
  const last = segments[segments.length - 1] ?? '';
  try {
    return decodeURIComponent(last);
  } catch {
    return last;
  }
}

/** Removes a signature from a URL before it is logged or shown. */
export function redactSignature(pathOrUrl: string): string {
  return pathOrUrl.replace(/([?&]signature=)[^&#]*/gi, '$1REDACTED');
}
