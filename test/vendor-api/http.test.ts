/** Unit tests of http.ts: every transport outcome and status maps to the right error class. */
import { Agent } from 'undici';
import {
  AmbiguousError,
  ForbiddenError,
  NotSentError,
  RateLimitedError,
  RejectedError,
  ResponseShapeError,
  UnauthorizedError,
  UpstreamFailedError,
} from '../../src/vendor-api/errors';
import { fieldFromVendorText, httpRequest, type HttpCall } from '../../src/vendor-api/http';
import { closedPortUrl, json, startServer, startTcpServer, type LocalServer } from '../support/http-server';

const agent = new Agent({ connect: { timeout: 300 } });
afterAll(() => agent.close());

let servers: LocalServer[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});
async function serve(...args: Parameters<typeof startServer>) {
  const s = await startServer(...args);
  servers.push(s);
  return s;
}

function call(url: string, over: Partial<HttpCall> = {}): HttpCall {
  return {
    endpoint: 'generation.create',
    method: 'POST',
    url,
    body: { model: 'm' },
    idempotent: false,
    dispatcher: agent,
    headersTimeoutMs: 300,
    bodyTimeoutMs: 300,
    ...over,
  };
}

async function failure(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a rejection');
}

describe('success', () => {
  it('returns status, headers, parsed JSON and a fresh 32-hex trace id per request', async () => {
    const s = await serve(json(200, { id: 't1' }, { 'x-extra': 'y' }));
    const a = await httpRequest(call(s.url, { traceHeader: 'X-Trace-ID' }));
    const b = await httpRequest(call(s.url, { traceHeader: 'X-Trace-ID' }));
    expect(a.status).toBe(200);
    expect(a.json).toEqual({ id: 't1' });
    expect(a.headers['x-extra']).toBe('y');
    expect(a.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(b.traceId).not.toBe(a.traceId);
    expect(s.requests[0]?.headers['x-trace-id']).toBe(a.traceId);
    expect(s.requests[0]?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(s.requests[0]?.body ?? '')).toEqual({ model: 'm' });
  });

  it('sends no trace header when none is asked for, and an empty 2xx body parses to undefined', async () => {
    const s = await serve((_q, res) => res.writeHead(200).end());
    const r = await httpRequest(call(s.url));
    expect(r.traceId).toBeUndefined();
    expect(r.json).toBeUndefined();
    expect(s.requests[0]?.headers['x-trace-id']).toBeUndefined();
  });

  it('sends a string body verbatim and no body when undefined', async () => {
    const s = await serve(json(200, {}));
    await httpRequest(call(s.url, { body: '' }));
    await httpRequest(call(s.url, { body: undefined }));
    expect(s.requests.map((r) => r.body)).toEqual(['', '']);
    expect(s.requests[1]?.headers['content-length'] ?? '0').toBe('0');
  });
});

describe('provably not sent → NotSentError (retryable)', () => {
  it('connection refused', async () => {
    const err = await failure(httpRequest(call(await closedPortUrl())));
    expect(err).toBeInstanceOf(NotSentError);
    expect((err as NotSentError).retryable).toBe(true);
    expect(err.message).toMatch(/generation\.create: request not sent \(connection refused\)/);
  });

  it('DNS failure', async () => {
    const err = await failure(httpRequest(call('http://no-such-host.invalid/v1/task/create')));
    expect(err).toBeInstanceOf(NotSentError);
  });

  it('connect timeout (TCP accepted, TLS handshake never answered)', async () => {
    const s = await startTcpServer(() => undefined);
    servers.push(s);
    const err = await failure(httpRequest(call(s.url.replace('http:', 'https:'))));
    expect(err).toBeInstanceOf(NotSentError);
    expect(err.message).toMatch(/connect timeout/);
  });

  it('TLS failure before any byte of the request', async () => {
    const s = await serve(json(200, {}));
    const err = await failure(httpRequest(call(s.url.replace('http:', 'https:'))));
    expect(err).toBeInstanceOf(NotSentError);
    expect(s.requests).toHaveLength(0);
  });

  it('signal already aborted', async () => {
    const s = await serve(json(200, {}));
    const err = await failure(httpRequest(call(s.url, { signal: AbortSignal.abort() })));
    expect(err).toBeInstanceOf(NotSentError);
    expect(s.requests).toHaveLength(0);
  });
});

describe('may have reached the server → AmbiguousError', () => {
  it('socket accepted then destroyed', async () => {
    const s = await startTcpServer((sock) => sock.destroy());
    servers.push(s);
    const err = await failure(httpRequest(call(s.url)));
    expect(err).toBeInstanceOf(AmbiguousError);
    expect((err as AmbiguousError).retryable).toBe(false);
  });

  it('request read, then the socket reset', async () => {
    const s = await startTcpServer((sock) => sock.once('data', () => sock.resetAndDestroy()));
    servers.push(s);
    const err = await failure(httpRequest(call(s.url)));
    expect(err).toBeInstanceOf(AmbiguousError);
  });

  it('no response headers within headersTimeout', async () => {
    const s = await serve(() => undefined);
    const err = await failure(httpRequest(call(s.url)));
    expect(err).toBeInstanceOf(AmbiguousError);
    expect(err.message).toMatch(/timed out waiting for response headers after the request was sent/);
    expect(s.requests).toHaveLength(1);
  });

  it('body stalls beyond bodyTimeout', async () => {
    const s = await serve((_q, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"id":');
    });
    const err = await failure(httpRequest(call(s.url)));
    expect(err).toBeInstanceOf(AmbiguousError);
    expect((err as AmbiguousError).status).toBe(200);
  });

  it('aborted by the caller after sending', async () => {
    const s = await serve(() => undefined);
    const ac = new AbortController();
    setTimeout(() => ac.abort(new Error('activity cancelled')), 50);
    const err = await failure(httpRequest(call(s.url, { signal: ac.signal, headersTimeoutMs: 5000 })));
    expect(err).toBeInstanceOf(AmbiguousError);
    expect(err.message).toMatch(/aborted by caller/);
  });

  it.each([500, 503, 504])('HTTP %i', async (status) => {
    const s = await serve(json(status, { message: 'boom' }));
    const err = await failure(httpRequest(call(s.url)));
    expect(err).toBeInstanceOf(AmbiguousError);
    expect(err).not.toBeInstanceOf(ResponseShapeError);
    expect((err as AmbiguousError).status).toBe(status);
  });

  it('unparseable 2xx body → ResponseShapeError, an AmbiguousError', async () => {
    const s = await serve((_q, res) => res.writeHead(200).end('<html>ok</html>'));
    const err = await failure(httpRequest(call(s.url)));
    expect(err).toBeInstanceOf(ResponseShapeError);
    expect(err).toBeInstanceOf(AmbiguousError);
  });

  it('retryable hint is true for idempotent reads', async () => {
    const s = await serve(json(500, {}));
    const err = (await failure(
      httpRequest(call(s.url, { method: 'GET', body: undefined, idempotent: true })),
    )) as AmbiguousError;
    expect(err.retryable).toBe(true);
  });
});

describe('status mapping', () => {
  it('429 with delta-seconds Retry-After', async () => {
    const s = await serve(
      json(429, { Code: 'RateLimitExceeded', Message: 'slow down', TrackId: 't' }, { 'retry-after': '3' }),
    );
    const err = (await failure(httpRequest(call(s.url, { endpoint: 'assets.GetAsset' })))) as RateLimitedError;
    expect(err).toBeInstanceOf(RateLimitedError);
    expect(err.retryAfterMs).toBe(3000);
    expect(err.vendorCode).toBe('RateLimitExceeded');
    expect(err.retryable).toBe(true);
  });

  it('429 with HTTP-date Retry-After, and without one', async () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    const s = await serve((req, res) => {
      const headers: Record<string, string> =
        req.url === '/date' ? { 'retry-after': 'Thu, 01 Jan 2026 00:00:05 GMT' } : {};
      res.writeHead(429, headers).end();
    });
    const dated = (await failure(httpRequest(call(`${s.url}/date`, { now: () => now })))) as RateLimitedError;
    expect(dated.retryAfterMs).toBe(5000);
    const bare = (await failure(httpRequest(call(`${s.url}/bare`)))) as RateLimitedError;
    expect(bare).toBeInstanceOf(RateLimitedError);
    expect(bare.retryAfterMs).toBeUndefined();
  });

  it('401 → UnauthorizedError, 403 → ForbiddenError with the vendor code', async () => {
    const s = await serve((req, res) => {
      if (req.url === '/401') res.writeHead(401).end();
      else
        res
          .writeHead(403, { 'content-type': 'application/json' })
          .end(JSON.stringify({ Code: 'GroupNotOwned', Message: 'no', TrackId: 'x' }));
    });
    expect(await failure(httpRequest(call(`${s.url}/401`)))).toBeInstanceOf(UnauthorizedError);
    const f = (await failure(
      httpRequest(call(`${s.url}/403`, { endpoint: 'assets.GetAssetGroup' })),
    )) as ForbiddenError;
    expect(f).toBeInstanceOf(ForbiddenError);
    expect(f.vendorCode).toBe('GroupNotOwned');
    expect(f.status).toBe(403);
  });

  it('400 → RejectedError naming the field from the vendor message', async () => {
    const s = await serve(json(400, { Code: 'MissingField', Message: 'GroupId is required', TrackId: 'vendor-track' }));
    const err = (await failure(
      httpRequest(
        call(s.url, { endpoint: 'assets.CreateAsset', knownFields: ['GroupId', 'URL', 'AssetType', 'Name'] }),
      ),
    )) as RejectedError;
    expect(err).toBeInstanceOf(RejectedError);
    expect(err.field).toBe('GroupId');
    expect(err.vendorCode).toBe('MissingField');
    expect(err.vendorMessage).toBe('GroupId is required');
    expect(err.traceId).toBe('vendor-track');
    expect(err.message).toMatch(
      /assets\.CreateAsset: rejected \(400\) field GroupId \(MissingField: GroupId is required\)/,
    );
    expect(err.retryable).toBe(false);
  });

  it('502: retryable UpstreamFailedError on asset management, not on erase; ambiguous elsewhere', async () => {
    const s = await serve(json(502, { Code: 'UpstreamCallFailed', Message: 'later', TrackId: 't' }));
    const assets = (await failure(httpRequest(call(s.url, { endpoint: 'assets.CreateAsset' })))) as UpstreamFailedError;
    expect(assets).toBeInstanceOf(UpstreamFailedError);
    expect(assets.retryable).toBe(true);
    expect(assets.vendorCode).toBe('UpstreamCallFailed');
    const erase = (await failure(httpRequest(call(s.url, { endpoint: 'erase.create' })))) as UpstreamFailedError;
    expect(erase).toBeInstanceOf(UpstreamFailedError);
    expect(erase.retryable).toBe(false);
    expect(erase.field).toBe('video_url');
    expect(erase.message).toMatch(/another video_url/);
    expect(await failure(httpRequest(call(s.url)))).toBeInstanceOf(AmbiguousError);
  });
});

describe('non-2xx with an unreadable body', () => {
  it('is classified by status alone: a 400 whose body stalls is still RejectedError', async () => {
    const s = await serve((_q, res) => {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.write('{"Code":');
    });
    const err = await failure(httpRequest(call(s.url)));
    expect(err).toBeInstanceOf(RejectedError);
    expect((err as RejectedError).status).toBe(400);
  });
});

describe('fieldFromVendorText', () => {
  it('prefers a path, then the longest known word', () => {
    expect(fieldFromVendorText('content[1].image_url.url is malformed', ['model', 'content'])).toBe(
      'content[1].image_url.url',
    );
    expect(fieldFromVendorText('Filter.GroupIds must be an array', ['Filter.GroupIds', 'Filter'])).toBe(
      'Filter.GroupIds',
    );
    expect(fieldFromVendorText('bad Name: too long', ['Name', 'Description'])).toBe('Name');
    expect(fieldFromVendorText('something else', ['Name'])).toBeUndefined();
    expect(fieldFromVendorText(undefined, ['Name'])).toBeUndefined();
  });
});
