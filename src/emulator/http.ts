/**
 * The small HTTP vocabulary handlers share: a parsed request in, a Reply out. Handlers
 * never touch the socket; server.ts sends the Reply (or, under a fault, does not).
 */
import type { IncomingMessage } from 'node:http';

export const MAX_BODY_BYTES = 1024 * 1024;

export interface EmuRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  /** Raw body; empty when none was sent. */
  body: Buffer;
}

/** What the request log records besides method/path/status (never secrets). */
export interface ReplyMeta {
  action?: string;
  traceId?: string;
  trackId?: string;
  callbackUrl?: string;
  /** Who called, as a label such as "user#1" or "key#1" — never the token itself. */
  principal?: string;
  /** Id of the resource created or read. */
  resourceId?: string;
}

export interface Reply {
  status: number;
  headers?: Record<string, string>;
  /** JSON-serialised unless it is a Buffer. */
  body?: unknown;
  meta?: ReplyMeta;
}

export const json = (status: number, body: unknown, meta?: ReplyMeta, headers?: Record<string, string>): Reply => ({
  status,
  body,
  meta,
  headers,
});

export function header(req: EmuRequest, name: string): string | undefined {
  const value = req.headers[name.toLowerCase()];
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined || first === '' ? undefined : first;
}

export type ParsedJson = { ok: true; value: unknown; empty: boolean } | { ok: false };

/** Parses a JSON body; an empty (or whitespace) body is reported as empty, not invalid. */
export function parseJson(body: Buffer): ParsedJson {
  const text = body.toString('utf8');
  if (text.trim() === '') return { ok: true, value: undefined, empty: true };
  try {
    return { ok: true, value: JSON.parse(text), empty: false };
  } catch {
    return { ok: false };
  }
}

/** True when a non-empty body is declared as something other than JSON. */
export function wrongContentType(req: EmuRequest): boolean {
  if (req.body.length === 0) return false;
  const type = header(req, 'content-type') ?? '';
  return !/^application\/([\w.+-]*\+)?json\b/i.test(type);
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export async function readBody(req: IncomingMessage): Promise<Buffer | 'too-large'> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return 'too-large';
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
