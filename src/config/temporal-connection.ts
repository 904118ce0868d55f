/**
 * Client connections to Temporal that close cleanly (docs/architecture.md, "Dependencies").
 * The client's gRPC retry interceptor (`makeGrpcRetryInterceptor` of @temporalio/client)
 * waits before each retry on a timer that `Connection.close()` does not clear. A retry due
 * after the close opens a call on the closed channel, which throws "Channel has been shut
 * down" inside that timer: an uncaught exception that ends the process (a CLI command, a
 * receiver shutting down, a test run). Here the SDK's own interceptor retries as it always
 * did, and a retry that finds the channel closed ends its call with CANCELLED instead.
 */
import { Metadata, status as GrpcStatus, type Interceptor, type StatusObject } from '@grpc/grpc-js';
import {
  Connection,
  defaultGrpcRetryOptions,
  makeGrpcRetryInterceptor,
  type ConnectionOptions,
} from '@temporalio/client';

/** What an interceptor's `nextCall` returns (grpc-js does not export the interface by name). */
type Call = ReturnType<Parameters<Interceptor>[1]>;

/** A call that cannot be made: it ends with CANCELLED (never retried) as soon as it starts. */
function endedCall(reason: string): Call {
  const status: StatusObject = {
    code: GrpcStatus.CANCELLED,
    details: `the Temporal connection was closed before a retry (${reason})`,
    metadata: new Metadata(),
  };
  const nothing = () => undefined;
  return {
    start: (_metadata, listener) => void setImmediate(() => listener?.onReceiveStatus?.(status)),
    sendMessage: nothing,
    sendMessageWithContext: nothing,
    startRead: nothing,
    halfClose: nothing,
    cancelWithStatus: nothing,
    getPeer: () => '',
    getAuthContext: () => null,
  };
}

/** The SDK's retry interceptor, with its defaults; a retry after close ends instead of throwing. */
function closeSafeRetryInterceptor(): Interceptor {
  const retrying = makeGrpcRetryInterceptor(defaultGrpcRetryOptions());
  return (options, nextCall) => {
    let first = true; // the first attempt runs in the caller's turn: a throw there rejects the call already
    return retrying(options, (callOptions) => {
      if (first) {
        first = false;
        return nextCall(callOptions);
      }
      try {
        return nextCall(callOptions);
      } catch (err) {
        return endedCall(err instanceof Error ? err.message : String(err));
      }
    });
  };
}

/** `Connection.connect` with the close-safe retry in place of the SDK's default one. */
export function connectTemporal(options: ConnectionOptions = {}): Promise<Connection> {
  return Connection.connect(withCloseSafeRetry(options));
}

/** `Connection.lazy` likewise: connects at its first call. */
export function lazyTemporal(options: ConnectionOptions = {}): Connection {
  return Connection.lazy(withCloseSafeRetry(options));
}

function withCloseSafeRetry(options: ConnectionOptions): ConnectionOptions {
  return { ...options, interceptors: [closeSafeRetryInterceptor(), ...(options.interceptors ?? [])] };
}
