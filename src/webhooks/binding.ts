/**
 * Which URLs a webhook signing secret may sign for (docs/webhooks.md, the secrets). A secret is
 * bound to the URLs or URL prefixes the worker configures beside it
 * (REELFLOW_ENDPOINT_<ID>_WEBHOOK_URL, REELFLOW_PROFILE_<NAME>_WEBHOOK_URL): otherwise any
 * definition author could name a trusted secret with their own URL and collect events that the
 * trusted endpoint verifies (docs/security.md, "Threat model").
 */

/** A secret with the URLs it may sign for; `urlVariable` names where those are configured. */
export interface WebhookKey {
  /** One `whsec_…`, or several space-separated while rotating. */
  secrets: string;
  /** URLs or URL prefixes (see urlCovers). */
  urls: readonly string[];
  urlVariable: string;
}

/** The configured items of a URL variable: a comma list. */
export function boundUrlsOf(value: string): string[] {
  return value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}

/** Why a configured URL or prefix is unusable, or undefined. Never echoes it (a query may hold a token). */
export function boundUrlProblem(value: string): string | undefined {
  const items = boundUrlsOf(value);
  if (items.length === 0) return 'must be an http(s) URL or URL prefix (several separated by commas)';
  for (const [i, item] of items.entries()) {
    const which = items.length === 1 ? '' : `item ${i + 1} of ${items.length} `;
    let url: URL;
    try {
      url = new URL(item);
    } catch {
      return `${which}must be an http(s) URL or URL prefix`;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return `${which}must be an http(s) URL`;
    if (url.username || url.password) return `${which}must not carry a user name or password`;
    if (url.hash) return `${which}must not carry a #fragment`;
  }
  return undefined;
}

/**
 * Whether `bound` covers `url`. Same origin (scheme, host, port) always; then a bound URL with
 * a query covers only itself, a path ending in `/` covers everything under it, and any other
 * path covers itself and what lies below it (`/hooks` covers `/hooks/a`, never `/hooksmith`).
 * Both are parsed first, so `..` and `%2e%2e` cannot climb out of the prefix.
 */
export function urlCovers(bound: string, url: string): boolean {
  let b: URL;
  let u: URL;
  try {
    [b, u] = [new URL(bound), new URL(url)];
  } catch {
    return false;
  }
  if (b.origin !== u.origin || u.username || u.password) return false;
  if (b.search) return b.pathname === u.pathname && b.search === u.search;
  if (b.pathname.endsWith('/')) return u.pathname.startsWith(b.pathname);
  return u.pathname === b.pathname || u.pathname.startsWith(`${b.pathname}/`);
}

/** Whether the key may sign a delivery to `url`. */
export function keyCovers(key: WebhookKey, url: string): boolean {
  return key.urls.some((bound) => urlCovers(bound, url));
}

/**
 * Why `key` may not sign for `url`, naming the variable that would allow it, or undefined.
 * Never shows the URL (its query may hold a token).
 */
export function keyRefusal(key: WebhookKey, url: string): string | undefined {
  if (keyCovers(key, url)) return undefined;
  return key.urls.length === 0
    ? `signs only for the worker's REELFLOW_NOTIFY_URL: set ${key.urlVariable} to allow other URLs`
    : `signs only for the URLs in ${key.urlVariable}, and this URL is not one of them`;
}
