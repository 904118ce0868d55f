/**
 * Unit tests of the tolerant response schemas and error reading: both dialects' shapes,
 * null = absent, any status string, Volcengine-style errors and lists, and the HTTP
 * classification that goes with them (404, …CallFailed, Retry-After, scrubbing).
 */
import { Agent } from 'undici';
import {
  ASSET_PENDING_STATES,
  ASSET_STATES,
  ERASE_STATES,
  GENERATION_TERMINAL_STATES,
} from '../../src/vendor-api/assumed-values';
import { GenerationTaskSchema, ReviewTaskSchema, VendorErrorBodySchema } from '../../src/vendor-api/assumed-shapes';
import {
  AmbiguousError,
  NotFoundError,
  RejectedError,
  toFailureInfo,
  UpstreamFailedError,
  type VendorError,
} from '../../src/vendor-api/errors';
import { httpRequest, scrub, type HttpCall } from '../../src/vendor-api/http';
import { createVendorClient } from '../../src/vendor-api/client';
import { assetEnvelopeSchema, EraseTaskSchema, ReviewAcceptedSchema } from '../../src/vendor-api/schemas';
import { json, startServer, type LocalServer } from '../support/http-server';
import { FailureType } from '../../src/failures';

describe('generation task: one shape from either dialect', () => {
  const ours = { id: 't1', status: 'succeeded', video_url: 'https://v/1.mp4', created_at: 10, finished_at: 20 };
  const ark = {
    id: 't1',
    model: 'seedance-1',
    status: 'succeeded',
    content: { video_url: 'https://v/1.mp4', last_frame_url: 'https://v/1.png' },
    error: null,
    usage: { completion_tokens: 1 },
    created_at: 10,
    updated_at: 20,
  };

  it('reads ours and the upstream alike, keeping only the normalized fields', () => {
    expect(GenerationTaskSchema.parse(ours)).toEqual(ours);
    expect(GenerationTaskSchema.parse(ark)).toEqual({
      id: 't1',
      model: 'seedance-1',
      status: 'succeeded',
      video_url: 'https://v/1.mp4',
      last_frame_url: 'https://v/1.png',
      created_at: 10,
      updated_at: 20,
    });
  });

  it('takes a failure from `error` {code, message} or a bare error string', () => {
    expect(
      GenerationTaskSchema.parse({ ...ark, status: 'failed', content: null, error: { code: 1301, message: 'nope' } }),
    ).toMatchObject({
      status: 'failed',
      fail_reason: 'nope',
      error_code: '1301',
    });
    expect(GenerationTaskSchema.parse({ id: 'x', status: 'failed', error: 'boom' }).fail_reason).toBe('boom');
  });

  it('prefers our fields when both are given; ignores a content array (an echo of the request)', () => {
    const both = { ...ark, video_url: 'https://ours', fail_reason: 'ours', error: { message: 'theirs' } };
    expect(GenerationTaskSchema.parse(both)).toMatchObject({ video_url: 'https://ours', fail_reason: 'ours' });
    const echo = GenerationTaskSchema.parse({ id: 'x', status: 'running', content: [{ type: 'text', text: 'hi' }] });
    expect(echo).toEqual({ id: 'x', status: 'running' });
  });

  it('null is absent; any non-empty status parses; expired is terminal', () => {
    const t = GenerationTaskSchema.parse({
      id: 'x',
      status: 'expired',
      video_url: null,
      fail_reason: null,
      finished_at: null,
    });
    expect(t).toEqual({ id: 'x', status: 'expired' });
    expect(GENERATION_TERMINAL_STATES).toContain('expired');
    expect(GenerationTaskSchema.parse({ id: 'x', status: 'NOT_START' }).status).toBe('NOT_START');
    const empty = GenerationTaskSchema.safeParse({ id: 'x', status: '' });
    expect(empty.success).toBe(false);
    expect(empty.error?.issues[0]).toMatchObject({ path: ['status'], message: 'must be a non-empty state' });
    expect(GenerationTaskSchema.safeParse({ id: null, status: 'queued' }).error?.issues[0]?.path).toEqual(['id']);
  });
});

describe('other tasks: null is absent, unknown states parse', () => {
  it('erase: NOT_START with nulls; a SUCCESS still needs its video', () => {
    expect(
      EraseTaskSchema.parse({ task_id: 't', request_id: 'r', status: 'NOT_START', video_url: null, fail_reason: null }),
    ).toEqual({
      task_id: 't',
      request_id: 'r',
      status: 'NOT_START',
    });
    expect(ERASE_STATES).not.toContain('NOT_START');
    expect(ERASE_STATES).not.toContain('UNKNOWN');
    const success = EraseTaskSchema.safeParse({ task_id: 't', request_id: 'r', status: 'SUCCESS', video_url: null });
    expect(success.error?.issues[0]).toMatchObject({ path: ['video_url'], message: 'required when status is SUCCESS' });
  });

  it('review: a null result and null item members; the 202 with an unknown status', () => {
    expect(
      ReviewTaskSchema.parse({ code: 200, task_id: 't', status: 'queueing', result: null, total_count: null }),
    ).toEqual({
      code: 200,
      task_id: 't',
      status: 'queueing',
    });
    const done = ReviewTaskSchema.parse({
      code: 200,
      task_id: 't',
      status: 'completed',
      result: {
        review_batch_id: null,
        items: [
          { source_url: 'u', submit_review_status: 1, asset_url: 'asset://a', error_code: null, error_message: null },
        ],
      },
    });
    expect(done.result?.items[0]).toEqual({ source_url: 'u', submit_review_status: 1, asset_url: 'asset://a' });
    expect(
      ReviewAcceptedSchema.parse({ code: 202, task_id: 't', track_id: 'x', status: 'SUBMITTED', message: null }).status,
    ).toBe('SUBMITTED');
  });
});

describe('asset management results', () => {
  const asset = {
    Id: 'a1',
    Name: null,
    AssetType: 'Image',
    GroupId: 'g',
    Status: 'Processing',
    URL: null,
    CreateTime: 't',
    UpdateTime: 't',
  };
  const meta = { Action: 'ListAssets', Region: 'r', RequestId: 'q', Service: 's', Version: 'v', Error: null };

  it.each([
    ['Items + TotalCount', { Items: [asset], TotalCount: 7 }],
    ['Items + Total', { Items: [asset], Total: 7 }],
    ['Assets + Total (spec)', { Assets: [asset], Total: 7 }],
  ])('a list as %s reads as {Assets, Total}', (_label, Result) => {
    const out = assetEnvelopeSchema('ListAssets').parse({ ResponseMetadata: meta, Result });
    expect(out.Result.Total).toBe(7);
    expect(out.Result.Assets).toEqual([
      { Id: 'a1', AssetType: 'Image', GroupId: 'g', Status: 'Processing', CreateTime: 't', UpdateTime: 't' },
    ]);
    expect(out.Result).not.toHaveProperty('Items');
  });

  it('a list with neither list nor count names what is missing', () => {
    const noList = assetEnvelopeSchema('ListAssetGroups').safeParse({ Result: { TotalCount: 1 } });
    expect(noList.error?.issues[0]).toMatchObject({ path: ['Result', 'AssetGroups'], message: 'required (or Items)' });
    const noCount = assetEnvelopeSchema('ListAssetGroups').safeParse({ Result: { Items: [] } });
    expect(noCount.error?.issues[0]).toMatchObject({ path: ['Result', 'Total'], message: 'required (or TotalCount)' });
  });

  it('Processing is a pending state', () => {
    expect(ASSET_PENDING_STATES).toEqual(['Pending', 'Processing']);
    expect(ASSET_STATES).toContain('Processing');
  });
});

describe('error bodies', () => {
  it('a member of an unexpected type is ignored, not fatal', () => {
    const b = VendorErrorBodySchema.parse({
      Code: { nested: true },
      ResponseMetadata: 'text',
      message: 'still read',
      field: null,
    });
    expect(b).toMatchObject({ message: 'still read' });
    expect(b.Code).toBeUndefined();
  });
});

describe('HTTP classification', () => {
  const agent = new Agent();
  let server: LocalServer | undefined;
  afterEach(() => server?.close());
  afterAll(() => agent.close());

  async function fail(handler: Parameters<typeof startServer>[0], over: Partial<HttpCall> = {}) {
    await server?.close(); // a test may call twice: the first server must not outlive the file
    server = await startServer(handler);
    const call: HttpCall = {
      endpoint: 'assets.GetAsset',
      method: 'POST',
      url: server.url,
      idempotent: true,
      dispatcher: agent,
      ...over,
    };
    return httpRequest(call).then(
      () => {
        throw new Error('expected a rejection');
      },
      (e: unknown) => e as VendorError & { vendorMessage?: string },
    );
  }

  it('reads Code and Message from ResponseMetadata.Error, and RequestId as the trace id', async () => {
    const body = {
      ResponseMetadata: {
        RequestId: 'req-1',
        Action: 'GetAsset',
        Error: { Code: 'AssetNotOwned', Message: 'not yours' },
      },
    };
    const err = await fail(json(403, body));
    expect(err).toMatchObject({ name: FailureType.ForbiddenError, vendorCode: 'AssetNotOwned', traceId: 'req-1' });
    expect(err.message).toContain('AssetNotOwned: not yours');
  });

  it('a 5xx whose code ends in CallFailed is a retryable UpstreamFailedError on asset management only', async () => {
    const body = { ResponseMetadata: { RequestId: 'r', Error: { Code: 'ArkCallFailed', Message: 'later' } } };
    const assets = await fail(json(503, body));
    expect(assets).toBeInstanceOf(UpstreamFailedError);
    expect(assets).toMatchObject({ retryable: true, vendorCode: 'ArkCallFailed' });
    const create = await fail(json(500, { Code: 'XCallFailed' }), { endpoint: 'generation.create', idempotent: false });
    expect(create).toBeInstanceOf(AmbiguousError);
  });

  it('404 is NotFoundError, a RejectedError that keeps the vendor message', async () => {
    const err = await fail(json(404, { error: { code: 'ResourceNotFound', message: 'no task t1', param: null } }), {
      endpoint: 'generation.get',
    });
    expect(err).toBeInstanceOf(NotFoundError);
    expect(err).toBeInstanceOf(RejectedError);
    expect(err).toMatchObject({
      name: FailureType.NotFoundError,
      status: 404,
      retryable: false,
      vendorCode: 'ResourceNotFound',
      vendorMessage: 'no task t1',
    });
    expect(toFailureInfo(err).type).toBe(FailureType.NotFoundError);
  });

  it('a 429 records the epoch ms until which to wait, by the injected clock', async () => {
    const err = await fail(json(429, {}, { 'retry-after': '3' }), { now: () => 5_000 });
    expect(err).toMatchObject({ name: FailureType.RateLimitedError, retryAfterMs: 3_000, retryAfterAt: 8_000 });
  });

  it('scrubs a credential in any letter case from message, code, field and TrackId', async () => {
    const secret = 'sk-Live-AbCd1234';
    const echo = secret.toUpperCase();
    const err = await fail(
      json(400, { Code: `C-${echo}`, Message: `bad ${secret.toLowerCase()}`, field: echo, TrackId: `t-${echo}` }),
      {
        secrets: [secret],
      },
    );
    const shown = JSON.stringify({
      ...toFailureInfo(err),
      vendorMessage: err.vendorMessage,
      message: err.message,
    }).toLowerCase();
    expect(shown).not.toContain(secret.toLowerCase());
    expect(err).toMatchObject({ traceId: 't-[redacted]', vendorCode: 'C-[redacted]', field: '[redacted]' });
  });

  it('the client refuses a path word that is not one path-safe token, naming the option', () => {
    const opts = { baseUrl: 'http://127.0.0.1:9', identityUrl: 'http://127.0.0.1:9' };
    expect(() => createVendorClient({ ...opts, pathWord: 'a/b' })).toThrow(
      /pathWord must be letters, digits, - and _ only/,
    );
    expect(() => createVendorClient({ ...opts, pathWord: '' })).toThrow(/pathWord/);
  });

  it('scrub() escapes regular-expression characters in a secret', () => {
    expect(scrub('key A.B*C+ and a.b*c+', ['a.b*c+'])).toBe('key [redacted] and [redacted]');
    expect(scrub('aXbYc', ['a.b'])).toBe('aXbYc');
  });
});
