/**
 * The codec server (`reelflow codec-server`): the Temporal Web UI and the `temporal` CLI
 * send it the payloads they show, it answers them decrypted (Temporal's "remote codec"
 * protocol, as in Temporal's encryption sample).
 *
 *   POST /decode, POST /encode   {"payloads":[{"metadata":{k: base64},"data": base64}]} → same shape
 *     200  done                     400  not that shape, or a payload no listed key decrypts
 *     401  token missing or wrong   413  body over the limit
 *     415  not `Content-Type: application/json`
 *   OPTIONS *   CORS preflight for the allowed origins (the Web UI runs in a browser)
 *   GET /healthz → 200
 *   any request whose Host header is not allowed → 403
 *
 * With a token, every POST needs `Authorization: Bearer <token>`. Logs: one line per
 * refused or failed request, never a payload, a key or the token.
 *
 * Why Host and Content-Type: without a token the server trusts whoever can reach it on
 * loopback. A web page can reach it too, through DNS rebinding (its own name re-pointed
 * at 127.0.0.1, so the browser thinks the request is same-origin): the Host header
 * then still names the page's host, so it is refused. And a cross-origin page can only
 * send a "simple" request without a preflight (text/plain, form data); requiring
 * application/json forces the preflight, which CORS answers for the allowed origins only.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import { ValueError, type Payload, type PayloadCodec } from '@temporalio/common';
import { z } from 'zod';
import { startHttpServer } from '../config/http-server';
import { hostAllowList } from './host-allow-list';

export const CODEC_BODY_LIMIT_BYTES = 32 * 1024 * 1024;

export interface CodecServerOptions {
  host: string;
  /** 0 = any free port. */
  port: number;
  codec: PayloadCodec;
  /** When set, POSTs need `Authorization: Bearer <token>`. */
  token?: string;
  /** Origins allowed by CORS, e.g. the Web UI's "http://localhost:8233". */
  origins: readonly string[];
  log?: (line: string) => void;
  bodyLimitBytes?: number;
  /**
   * Host headers answered, `host` or `host:port` (an entry without a port means the bound
   * port). Default: the bound host and port, plus `127.0.0.1`, `localhost` and `[::1]`
   * when bound to loopback. Required when binding every interface (0.0.0.0, ::).
   */
  allowedHosts?: readonly string[];
}

export interface CodecServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

const Base64 = z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/, 'must be base64');
const BodySchema = z.object({
  payloads: z.array(
    z.object({
      metadata: z.record(z.string(), Base64).nullish(),
      data: Base64.nullish(),
    }),
  ),
});
type JsonPayload = z.infer<typeof BodySchema>['payloads'][number];

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const fromJson = (p: JsonPayload): Payload => ({
  metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64')])),
  data: Buffer.from(p.data ?? '', 'base64'),
});

const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64');
const toJson = (p: Payload) => ({
  metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, b64(v)])),
  data: b64(p.data ?? new Uint8Array()),
});

/** Constant-time comparison of digests, so neither the token's length nor its prefix leaks. */
function tokenMatches(header: string | undefined, token: string): boolean {
  const given = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1];
  if (!given) return false;
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(given), digest(token));
}

async function readBody(req: http.IncomingMessage, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new HttpError(413, `body over ${limit} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function parseBody(raw: Buffer): Payload[] {
  let json: unknown;
  try {
    json = JSON.parse(raw.toString('utf8'));
  } catch {
    throw new HttpError(400, 'body is not JSON');
  }
  const r = BodySchema.safeParse(json);
  if (!r.success) {
    const issue = r.error.issues[0];
    throw new HttpError(400, `body.${issue.path.join('.')}: ${issue.message}`);
  }
  return r.data.payloads.map(fromJson);
}

function corsHeaders(origin: string | undefined, origins: readonly string[]): Record<string, string> {
  if (!origin || !origins.includes(origin)) return {};
  return {
    'access-control-allow-origin': origin,
    'access-control-allow-credentials': 'true',
    'access-control-allow-methods': 'POST, OPTIONS',
    'access-control-allow-headers': 'authorization, content-type, x-namespace',
    'access-control-max-age': '600',
    vary: 'Origin',
  };
}

/** `Content-Type: application/json`, parameters (charset) allowed. */
function isJson(contentType: string | undefined): boolean {
  return /^application\/json\s*(;|$)/i.test(contentType ?? '');
}

export async function startCodecServer(opts: CodecServerOptions): Promise<CodecServer> {
  const log = opts.log ?? (() => undefined);
  const limit = opts.bodyLimitBytes ?? CODEC_BODY_LIMIT_BYTES;
  // Judged before listening: binding every interface with no list is a configuration error.
  hostAllowList(opts.host, opts.port || 1, opts.allowedHosts);
  let allowed: ReadonlySet<string> = new Set();

  async function answer(req: http.IncomingMessage): Promise<[number, unknown]> {
    const path = (req.url ?? '').split('?')[0];
    if (req.method === 'GET' && path === '/healthz') return [200, { ok: true }];
    const op = path === '/decode' ? 'decode' : path === '/encode' ? 'encode' : undefined;
    if (!op) throw new HttpError(404, 'not found: POST /decode or /encode');
    if (req.method !== 'POST') throw new HttpError(405, `${path}: POST only`);
    if (!isJson(req.headers['content-type'])) {
      throw new HttpError(415, `${path}: Content-Type must be application/json`);
    }
    if (opts.token !== undefined && !tokenMatches(req.headers.authorization, opts.token)) {
      throw new HttpError(401, 'missing or wrong bearer token');
    }
    const payloads = parseBody(await readBody(req, limit));
    const out = op === 'decode' ? await opts.codec.decode(payloads) : await opts.codec.encode(payloads);
    return [200, { payloads: out.map(toJson) }];
  }

  const listener = await startHttpServer(
    (req, res) => {
      const cors = corsHeaders(req.headers.origin, opts.origins);
      const hostHeader = (req.headers.host ?? '').toLowerCase();
      if (!allowed.has(hostHeader)) {
        log(`${req.method} ${(req.url ?? '').split('?')[0].slice(0, 100)}: 403 Host header not allowed`);
        const error = `Host header ${JSON.stringify(hostHeader.slice(0, 100))} is not one this codec server answers to (allowed: ${[...allowed].join(', ')}); see --allowed-host`;
        res.writeHead(403, { 'content-type': 'application/json', connection: 'close' }).end(JSON.stringify({ error }));
        return;
      }
      if (req.method === 'OPTIONS') {
        res.writeHead(Object.keys(cors).length ? 204 : 403, cors).end();
        return;
      }
      answer(req).then(
        ([status, body]) =>
          res.writeHead(status, { ...cors, 'content-type': 'application/json' }).end(JSON.stringify(body)),
        (err: unknown) => {
          const status = err instanceof HttpError ? err.status : err instanceof ValueError ? 400 : 500;
          const message = err instanceof HttpError || err instanceof ValueError ? err.message : 'internal error';
          log(`${req.method} ${(req.url ?? '').split('?')[0].slice(0, 100)}: ${status} ${message}`);
          if (status === 500) log(`  ${err instanceof Error ? err.name : 'error'}`);
          const headers = { ...cors, 'content-type': 'application/json', connection: 'close' };
          res.writeHead(status, status === 401 ? { ...headers, 'www-authenticate': 'Bearer' } : headers);
          res.end(JSON.stringify({ error: message }));
        },
      );
    },
    { port: opts.port, host: opts.host, closeGraceMs: 0 },
  );
  const { port } = listener;
  allowed = hostAllowList(opts.host, port, opts.allowedHosts);
  // The host as the allow list names it: `::` stays `[::]`.
  const host = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  return { url: `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`, port, close: listener.close };
}
