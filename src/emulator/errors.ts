/**
 * Error bodies, per interface. Asset management's is the spec's {Code, Message,
 * TrackId}. Generation, erasure and review show none in the spec; the emulator answers
 * {code, message} with code = the HTTP status, and a message that names the field.
 */
import { json, type Reply, type ReplyMeta } from './http';

export type Interface = 'generation' | 'erase' | 'assets' | 'review' | 'media' | 'emulator';

export function simpleError(
  status: number,
  message: string,
  meta?: ReplyMeta,
  headers?: Record<string, string>,
): Reply {
  return json(status, { code: status, message }, meta, headers);
}

export function assetError(
  status: number,
  code: string,
  message: string,
  trackId: string,
  meta?: ReplyMeta,
  headers?: Record<string, string>,
): Reply {
  return json(
    status,
    { Code: code, Message: message, TrackId: trackId },
    { ...meta, trackId },
    {
      'x-track-id': trackId,
      ...headers,
    },
  );
}

/** The bodies injected faults answer with, in each interface's own error format. */
export function faultReply(
  iface: Interface,
  kind: 'rateLimit429' | 'upstream502' | 'error500AfterCreate',
  trackId: string,
  retryAfterSeconds = 1,
  callFailedCode = 'UpstreamCallFailed',
): Reply {
  const retry = { 'retry-after': String(retryAfterSeconds) };
  if (iface === 'assets') {
    if (kind === 'rateLimit429')
      return assetError(429, 'RateLimitExceeded', 'too many requests, retry later', trackId, {}, retry);
    if (kind === 'upstream502') return assetError(502, callFailedCode, 'upstream call failed, retry later', trackId);
    return assetError(500, 'InternalError', 'internal error', trackId);
  }
  if (kind === 'rateLimit429') return simpleError(429, 'too many requests, retry later', {}, retry);
  if (kind === 'upstream502') {
    return simpleError(502, iface === 'erase' ? 'video processing failed' : 'upstream call failed, retry later');
  }
  return simpleError(500, 'internal error');
}
