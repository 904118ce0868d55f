/**
 * No error may carry a credential: every class is forced against a vendor that echoes
 * the Authorization and X-Access-Token headers back in its error bodies.
 */
import { inspect } from 'node:util';
import { createVendorClient, type VendorClient } from '../../src/vendor-api/client';
import { resolveProfile } from '../../src/vendor-api/config';
import {
  AmbiguousError,
  ForbiddenError,
  MissingCredentialError,
  NotSentError,
  RateLimitedError,
  RejectedError,
  ResponseShapeError,
  toFailureInfo,
  UnauthorizedError,
  UpstreamFailedError,
  VendorConfigError,
  VendorError,
} from '../../src/vendor-api/errors';
import { scrub } from '../../src/vendor-api/http';
import { closedPortUrl, startServer, type LocalServer } from '../support/http-server';
import { FailureType } from '../../src/failures';

const API_KEY = 'sk-LIVE-9f8e7d6c5b4a39281706';
const TOKEN = 'at-LIVE-0a1b2c3d4e5f60718293';
const SECRETS = [API_KEY, TOKEN];

/** erase → 502; asset management → the status named by the body's Id; else the last path segment. */
function statusFor(url: string, body: string): number {
  if (url.includes('erase-video-subtitle')) return 502;
  if (url.startsWith('/api/asset-management')) return Number((JSON.parse(body) as { Id: string }).Id);
  return Number(url.split('/').pop());
}

let server: LocalServer;
let client: VendorClient;
beforeAll(async () => {
  server = await startServer((req, res) => {
    const echo = `auth=${String(req.headers.authorization)} token=${String(req.headers['x-access-token'])}`;
    const status = statusFor(req.url, req.body);
    const body =
      status === 200
        ? { ResponseMetadata: echo, Result: echo }
        : { Code: `Code ${echo}`, Message: echo, TrackId: 'tr', field: echo, message: echo };
    res.writeHead(status, { 'content-type': 'application/json', 'retry-after': '1' }).end(JSON.stringify(body));
  });
  client = createVendorClient({ baseUrl: server.url, identityUrl: server.url, apiKey: API_KEY, accessToken: TOKEN });
});
afterAll(async () => {
  await client.close();
  await server.close();
});

function assertClean(err: unknown) {
  expect(err).toBeInstanceOf(Error);
  const e = err as Error;
  const views = [
    e.message,
    e.stack ?? '',
    JSON.stringify(e),
    JSON.stringify(toFailureInfo(e)),
    inspect(e, { depth: 5 }),
    String(e),
  ];
  for (const view of views) for (const s of SECRETS) expect(view).not.toContain(s);
}

const catching = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e,
  );
const rawGet = (status: number) => client.raw.rawRequest('GET', `/v1/videos/${status}`);

const cases: [string, new (...a: never[]) => Error, () => Promise<unknown>][] = [
  [
    FailureType.NotSentError,
    NotSentError,
    async () => {
      const c = createVendorClient({ baseUrl: await closedPortUrl(), identityUrl: server.url, apiKey: API_KEY });
      return catching(c.generation.get('x')).finally(() => c.close());
    },
  ],
  [FailureType.AmbiguousError, AmbiguousError, () => catching(rawGet(500))],
  [FailureType.ResponseShapeError, ResponseShapeError, () => catching(client.assets.getAsset({ Id: '200' }))],
  [FailureType.RateLimitedError, RateLimitedError, () => catching(rawGet(429))],
  ['RejectedError (vendor)', RejectedError, () => catching(rawGet(400))],
  [
    'RejectedError (ours)',
    RejectedError,
    () =>
      catching(
        client.generation.create({
          model: API_KEY,
          content: [{ type: 'image_url', image_url: { url: `data:${TOKEN}` } }],
        }),
      ),
  ],
  [FailureType.UnauthorizedError, UnauthorizedError, () => catching(rawGet(401))],
  [FailureType.ForbiddenError, ForbiddenError, () => catching(rawGet(403))],
  ['UpstreamFailedError (assets)', UpstreamFailedError, () => catching(client.assets.getAsset({ Id: '502' }))],
  [
    'UpstreamFailedError (erase)',
    UpstreamFailedError,
    () => catching(client.erase.create({ video_url: 'https://x.io/v.mp4' })),
  ],
  [
    FailureType.MissingCredentialError,
    MissingCredentialError,
    () =>
      catching(
        createVendorClient({ baseUrl: server.url, identityUrl: server.url, apiKey: API_KEY }).review.getTask('t'),
      ),
  ],
  [
    FailureType.VendorConfigError,
    VendorConfigError,
    () => catching(Promise.resolve().then(() => resolveProfile('p', { REELFLOW_PROFILE_P_API_KEY: API_KEY }))),
  ],
];

describe('secrets never appear in errors', () => {
  it.each(cases)('%s', async (_label, cls, force) => {
    const err = await force();
    expect(err).toBeInstanceOf(cls);
    assertClean(err);
  });

  it('vendor text is kept but scrubbed, so the check above is not vacuous', async () => {
    const err = (await rawGet(400).catch((e: unknown) => e)) as RejectedError;
    expect(err.message).toContain('auth=Bearer [redacted]');
    expect(err.vendorMessage).toContain('[redacted]');
  });

  it('the base class and failure info carry only safe fields', () => {
    const e = new VendorError('generation.create: boom', {
      endpoint: 'generation.create',
      status: 500,
      traceId: 'a'.repeat(32),
    });
    assertClean(e);
    expect(toFailureInfo(e)).toEqual({
      type: FailureType.VendorError,
      message: 'generation.create: boom',
      endpoint: 'generation.create',
      status: 500,
      traceId: 'a'.repeat(32),
      retryable: false,
    });
  });
});

test('vendor error text is scrubbed of callback tokens as well as keys (any letter case)', () => {
  const token = 'fedcba9876543210fedcba9876543210';
  const echoed = `callback_url http://receiver.example/base/callbacks/wf%3A1/erase/2/${token} refused; key ${API_KEY.toLowerCase()}`;
  const out = scrub(echoed, SECRETS);
  expect(out).not.toContain(token);
  expect(out.toLowerCase()).not.toContain(API_KEY.toLowerCase());
  expect(out).toContain('/callbacks/wf%3A1/erase/2/[redacted]');
  expect(scrub(`url=${encodeURIComponent(`https://r.example/callbacks/wf-1/generation/0/${token}`)}`)).not.toContain(
    token,
  );
});
