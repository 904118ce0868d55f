/**
 * Entry points the vendor names only by path (docs/vendor-contract.md). Their shapes are
 * unknown, so this is a deliberately narrow escape hatch: exactly the listed method + path
 * templates, under {base_url} with the Bearer API key (assumed-values.ts), JSON in and
 * `unknown` JSON out. Callers validate what they get.
 */
import { z } from 'zod';
import { RAW_ENTRY_POINTS_BASE } from './assumed-values';
import { exchange, joinUrl, type CallOptions, type VendorContext } from './context';
import { pathOf } from './spans';
import { RejectedError } from './errors';

/** The paths as the vendor names them, verbatim (`<image_model>` written as `{model}`). */
export const RAW_ENTRY_POINTS = [
  'POST /v1/video/generations',
  'GET /v1/video/generations/{task_id}',
  'POST /kling/v1/videos/text2video',
  'POST /vidu/ent/v2/text2video',
  'POST /v1/videos',
  'GET /v1/videos/{video_id}',
  'GET /kling/v1/videos/text2video/{task_id}',
  'GET /kling/v1/videos/image2video/{task_id}',
  'GET /kling/v1/videos/omni-video/{task_id}',
  'POST /v1/chat/completions',
  'POST /v1/responses',
  'POST /v1beta/models/{model}:generateContent',
  'POST /v1/messages',
  'POST /v1/images/generations',
  'POST /v1/images/edits',
  'POST /v1/aigc-images/generations',
  'GET /v1/aigc-images/generations/{task_id}',
] as const;
export type RawEntryPoint = (typeof RAW_ENTRY_POINTS)[number];
export type RawMethod = 'GET' | 'POST';

// A parameter is one path segment of unreserved/percent-encoded characters; never . or ..
const PARAM = "(?!\\.\\.?(?:[/:]|$))[A-Za-z0-9._~%!$&'()*+,;=@-]+";

const MATCHERS = RAW_ENTRY_POINTS.map((t) => {
  const [method, path] = t.split(' ') as [RawMethod, string];
  const src = path
    .split(/(\{[a-z_]+\})/)
    .map((part) => (part.startsWith('{') ? PARAM : part.replace(/[.*+?^$()|[\]\\]/g, '\\$&')))
    .join('');
  return { template: t, method, re: new RegExp(`^${src}$`) };
});

/** The template a method + concrete path matches, or undefined. */
export function matchRawEntryPoint(method: string, path: string): RawEntryPoint | undefined {
  return MATCHERS.find((m) => m.method === method && m.re.test(path))?.template;
}

export interface RawApi {
  /**
   * Calls one of those entry points, e.g. `rawRequest('GET', '/kling/v1/videos/text2video/abc')`.
   * Request and response shapes are unknown to the spec: the result is unchecked JSON.
   * Any other method/path is a RejectedError (not sent). POSTs are treated as creates.
   */
  rawRequest: (method: RawMethod, path: string, body?: unknown, opts?: CallOptions) => Promise<unknown>;
}

export function createRawApi(ctx: VendorContext): RawApi {
  const base = RAW_ENTRY_POINTS_BASE === 'base_url' ? ctx.baseUrl : ctx.identityUrl;
  return {
    async rawRequest(method, path, body, opts) {
      const template = matchRawEntryPoint(method, path);
      const endpoint = `raw.${method} ${template ?? path.slice(0, 100)}`;
      if (!template) {
        throw new RejectedError(
          `${endpoint}: not an entry point of the vendor contract (docs/vendor-contract.md; not sent)`,
          {
            endpoint,
            field: 'path',
          },
        );
      }
      if (method === 'GET' && body !== undefined) {
        throw new RejectedError(`${endpoint}: GET takes no body (not sent)`, { endpoint, field: 'body' });
      }
      return exchange(
        ctx,
        {
          endpoint: `raw.${template}`,
          method,
          url: joinUrl(base, path),
          route: pathOf(joinUrl(base, template.slice(template.indexOf(' ') + 1))),
          auth: 'apiKey',
          body,
          idempotent: method === 'GET',
          response: z.unknown(),
        },
        opts,
      );
    },
  };
}
