/**
 * How `reelflow doctor` reads one vendor interface without a paid call: it queries a
 * well-formed task id nobody created. The interface itself answers that with its own
 * not-found error, a JSON body; a path the vendor does not serve (a wrong path word or
 * base URL) gets the gateway's bare 404 instead. docs/doctor.md, "What tells a wrong
 * path from an unknown id".
 */
import { randomBytes } from 'node:crypto';
import { request } from 'undici';

export type ProbeVerdict =
  | { kind: 'answered'; status: number }
  | { kind: 'auth'; status: number }
  | { kind: 'no-route'; status: number }
  | { kind: 'unexpected'; status: number }
  | { kind: 'unreachable'; reason: string };

/** A task id no one created, shaped like an id (letters, digits and "-"), never a real task's. */
export const probeTaskId = (): string => `reelflow-doctor-${randomBytes(12).toString('hex')}`;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The interfaces' error bodies: `{code, message}`, or `{error: {code, message}}`. */
export function isVendorErrorBody(body: unknown): boolean {
  if (!isRecord(body)) return false;
  const inner = isRecord(body.error) ? body.error : body;
  return (typeof inner.code === 'number' || typeof inner.code === 'string') && typeof inner.message === 'string';
}

/** Judges one answer to the unknown-id query. */
export function judgeProbe(status: number, contentType: string, text: string): ProbeVerdict {
  if (status === 401 || status === 403) return { kind: 'auth', status };
  let body: unknown;
  if (/json/i.test(contentType)) {
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
  }
  if (status === 404) return isVendorErrorBody(body) ? { kind: 'answered', status } : { kind: 'no-route', status };
  if (status >= 200 && status < 300 && isRecord(body)) return { kind: 'answered', status };
  return { kind: 'unexpected', status };
}

/** Tries of a probe whose answer may be a moment's: no answer, 429 or 5xx (docs/doctor.md). */
export const PROBE_TRIES = 3;
export const PROBE_RETRY_MS = 500;

/** Nothing, 429 or 5xx: the vendor was busy or unreachable for a moment, which a try later may not see. */
const momentary = (v: ProbeVerdict) =>
  v.kind === 'unreachable' || (v.kind === 'unexpected' && (v.status === 429 || v.status >= 500));

/**
 * GETs `url` with `headers` (at most `timeoutMs` for the headers and the body each), up to
 * PROBE_TRIES times while the answer is a momentary one, so that one reset or 503 at a
 * worker's start does not refuse it; the last verdict stands.
 */
export async function probe(url: string, headers: Record<string, string>, timeoutMs: number): Promise<ProbeVerdict> {
  let verdict = await probeOnce(url, headers, timeoutMs);
  for (let tried = 1; tried < PROBE_TRIES && momentary(verdict); tried++) {
    await new Promise((r) => setTimeout(r, PROBE_RETRY_MS * tried));
    verdict = await probeOnce(url, headers, timeoutMs);
  }
  return verdict;
}

async function probeOnce(url: string, headers: Record<string, string>, timeoutMs: number): Promise<ProbeVerdict> {
  try {
    const res = await request(url, { method: 'GET', headers, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
    const text = await res.body.text();
    const type = res.headers['content-type'];
    return judgeProbe(res.statusCode, Array.isArray(type) ? type.join(',') : (type ?? ''), text);
  } catch (err) {
    const code = (err as { code?: string }).code;
    return { kind: 'unreachable', reason: code ?? (err instanceof Error ? err.message : String(err)) };
  }
}
