/**
 * zod → our errors. Requests are checked before sending (RejectedError, nothing sent);
 * 2xx bodies are checked after (ResponseShapeError). Messages carry the field path and
 * zod's message, never the offending value (it may be a huge data: URL or a secret).
 */
import type { z } from 'zod';
import { RejectedError, ResponseShapeError } from './errors';

/** ['content', 1, 'image_url', 'url'] → 'content[1].image_url.url'. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) {
    if (typeof p === 'number') out += `[${p}]`;
    else out += out === '' ? String(p) : `.${String(p)}`;
  }
  return out;
}

function firstIssue(error: z.ZodError): { field: string; message: string } {
  const issue = error.issues[0];
  if (!issue) return { field: '', message: 'invalid' };
  let path = [...issue.path];
  // An unknown key is reported on its parent; name the key itself.
  if (issue.code === 'unrecognized_keys' && issue.keys.length > 0) path = [...path, issue.keys[0]];
  return { field: formatPath(path), message: issue.message };
}

/** Parses a request or throws RejectedError naming the first bad field. */
export function validateRequest<S extends z.ZodType>(endpoint: string, schema: S, value: unknown): z.output<S> {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const { field, message } = firstIssue(r.error);
  const where = field === '' ? 'request body' : `field ${field}`;
  const opts = field === '' ? { endpoint } : { endpoint, field };
  throw new RejectedError(`${endpoint}: invalid ${where}: ${message} (not sent)`, opts);
}

export interface ResponseContext {
  endpoint: string;
  status: number;
  traceId?: string;
  idempotent: boolean;
}

/** Parses a 2xx body or throws ResponseShapeError (an AmbiguousError) naming the field. */
export function parseResponse<S extends z.ZodType>(ctx: ResponseContext, schema: S, json: unknown): z.output<S> {
  const r = schema.safeParse(json);
  if (r.success) return r.data;
  const { field, message } = firstIssue(r.error);
  const where = field === '' ? 'body' : `field ${field}`;
  const opts: ConstructorParameters<typeof ResponseShapeError>[1] = {
    endpoint: ctx.endpoint,
    status: ctx.status,
    retryable: ctx.idempotent,
  };
  if (field !== '') opts.field = field;
  if (ctx.traceId !== undefined) opts.traceId = ctx.traceId;
  throw new ResponseShapeError(`${ctx.endpoint}: unexpected ${ctx.status} response ${where}: ${message}`, opts);
}
