/**
 * Retry-After (RFC 9110 10.2.3): delta-seconds or an HTTP-date. Pure, so workflows may
 * use it too.
 */

const DELTA_SECONDS = /^\d+$/;
// IMF-fixdate, obsolete RFC 850 and asctime forms all start with a day name.
const HTTP_DATE = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*,? /i;
// asctime carries no zone but means GMT; Date.parse would read it as local time.
const ASCTIME = /^[A-Za-z]{3} [A-Za-z]{3} [ \d]\d \d\d:\d\d:\d\d \d{4}$/;

/**
 * Milliseconds to wait, or undefined when the header is absent or unparseable.
 * A date in the past gives 0. `nowMs` is injectable for tests.
 */
export function parseRetryAfter(value: string | string[] | undefined, nowMs: number = Date.now()): number | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  if (raw === undefined) return undefined;
  const v = raw.trim();
  if (v === '') return undefined;
  if (DELTA_SECONDS.test(v)) {
    const seconds = Number(v);
    return Number.isSafeInteger(seconds) ? seconds * 1000 : undefined;
  }
  if (!HTTP_DATE.test(v)) return undefined;
  const at = Date.parse(ASCTIME.test(v) ? `${v} GMT` : v);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}
