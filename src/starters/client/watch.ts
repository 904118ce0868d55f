/**
 * Changes of a pipeline, as they happen: one poller per pipeline turns the `status` query
 * into versioned snapshots, emitted only when something a reader sees has changed, and ends
 * with the pipeline's outcome. `watchPipeline` (the library) and the gateway's event streams
 * (src/starters/gateway/status-hub.ts) share it, so both see the same changes (docs/api.md, "Events").
 */
import type { Client } from '@temporalio/client';
import { statusQuery, type PipelineResult, type PipelineStatus } from '../../contract/messages';
import { outcomeOf, type VideoPipelineWorkflow } from './pipeline-client';
import { nextVersion, statusKey } from './status-change';

export { nextVersion, statusKey } from './status-change';

/** How a pipeline ended, as plain JSON (the end event's body). */
export type PipelineEnd =
  | { status: 'completed'; result: PipelineResult }
  | {
      status: 'failed' | 'cancelled' | 'terminated' | 'timed-out';
      failure: { type?: string; stage?: string; vendorCode?: string; message: string; messages: string[] };
    };

/** One change: a full status snapshot, or the end (with the last snapshot, when a worker answered). */
export type PipelineChange =
  | { kind: 'status'; version: number; pipelineId: string; status: PipelineStatus }
  | { kind: 'end'; version: number; pipelineId: string; status?: PipelineStatus; end: PipelineEnd };

/** The end as plain JSON, from the result or from what `handle.result()` rejected with. */
export function endOf(pipelineId: string, settled: { result: PipelineResult } | { error: unknown }): PipelineEnd {
  if ('result' in settled) return { status: 'completed', result: settled.result };
  const { error } = outcomeOf(pipelineId, settled.error); // rethrows what is not a pipeline's end
  const failure = {
    message: error.messages.join(': ') || error.message,
    messages: error.messages,
    ...(error.type !== undefined ? { type: error.type } : {}),
    ...(error.stage !== undefined ? { stage: error.stage } : {}),
    ...(error.vendorCode !== undefined ? { vendorCode: error.vendorCode } : {}),
  };
  return { status: error.status, failure };
}

export interface PollerOptions {
  /** Between status queries (default 500 ms). */
  intervalMs?: number;
  /** Per status query (default 5 s). */
  queryTimeoutMs?: number;
  /** Counts each status query sent (the gateway's metric). */
  onQuery?: () => void;
  /** A status query that failed (no worker yet, the first workflow task not done…); polling goes on. */
  onQueryError?: (err: unknown) => void;
}

/**
 * Polls one pipeline until it ends, calling `emit` with each change and then the end. The
 * end comes from `handle.result()` (a long poll on the server, no history event added), so a
 * termination or a timeout, which the status query cannot see, ends it too. `stop()` ends it early.
 */
export class PipelinePoller {
  private version = 0;
  private lastKey: string | undefined;
  private lastStatus: PipelineStatus | undefined;
  private stopped = false;
  private wake: (() => void) | undefined;
  private settled: { result: PipelineResult } | { error: unknown } | undefined;
  readonly done: Promise<void>;

  constructor(
    private readonly client: Client,
    readonly pipelineId: string,
    private readonly emit: (change: PipelineChange) => void,
    private readonly opts: PollerOptions = {},
    /** Hands a rejection that is not a pipeline's end (not found, connection lost) to the caller. */
    onError: (err: unknown) => void = () => undefined,
  ) {
    this.done = this.run().catch((err: unknown) => {
      if (!this.stopped) onError(err);
    });
  }

  stop(): void {
    this.stopped = true;
    this.wake?.();
  }

  private async run(): Promise<void> {
    const handle = this.client.workflow.getHandle<VideoPipelineWorkflow>(this.pipelineId);
    const ended = handle.result().then(
      (result) => void (this.settled = { result }),
      (error: unknown) => void (this.settled = { error }),
    );
    void ended.then(() => this.wake?.());
    while (!this.stopped && !this.settled) {
      await this.poll(handle);
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        setTimeout(resolve, this.opts.intervalMs ?? 500).unref();
      });
    }
    if (this.stopped || !this.settled) return;
    await this.poll(handle); // the final state (best effort: a closed workflow is replayed to answer)
    const end = endOf(this.pipelineId, this.settled);
    this.version = nextVersion(this.version);
    this.emit({
      kind: 'end',
      version: this.version,
      pipelineId: this.pipelineId,
      end,
      ...(this.lastStatus ? { status: this.lastStatus } : {}),
    });
  }

  private async poll(handle: ReturnType<Client['workflow']['getHandle']>): Promise<void> {
    try {
      this.opts.onQuery?.();
      const deadline = Date.now() + (this.opts.queryTimeoutMs ?? 5_000);
      const status = await this.client.withDeadline(deadline, () => handle.query(statusQuery));
      const key = statusKey(status);
      this.lastStatus = status;
      // Once it has ended, the last snapshot rides on the end event: a resumed stream gets the end alone.
      if (key === this.lastKey || this.settled) return;
      this.lastKey = key;
      this.version = nextVersion(this.version);
      this.emit({ kind: 'status', version: this.version, pipelineId: this.pipelineId, status });
    } catch (err) {
      this.opts.onQueryError?.(err);
    }
  }
}

/**
 * The changes of a pipeline as an async iterator: a status snapshot whenever what it shows
 * changes, then one `end` change, after which the iterator finishes. Breaking out of the
 * loop (or `signal`) stops polling. Rejects when the pipeline does not exist.
 *
 * ```ts
 * for await (const change of watchPipeline(client, id)) {
 *   if (change.kind === 'status') console.log(change.status.stage, change.status.state);
 *   else console.log('ended', change.end.status);
 * }
 * ```
 */
export async function* watchPipeline(
  client: Client,
  pipelineId: string,
  opts: PollerOptions & { signal?: AbortSignal } = {},
): AsyncGenerator<PipelineChange, void, undefined> {
  const queue: PipelineChange[] = [];
  let failure: { error: unknown } | undefined;
  let notify: (() => void) | undefined;
  const poke = () => notify?.();
  const poller = new PipelinePoller(
    client,
    pipelineId,
    (c) => (queue.push(c), poke()),
    opts,
    (error) => ((failure = { error }), poke()),
  );
  const onAbort = () => (poller.stop(), poke());
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    for (;;) {
      const next = queue.shift();
      if (next) {
        yield next;
        if (next.kind === 'end') return;
        continue;
      }
      if (failure) throw failure.error;
      if (opts.signal?.aborted) return;
      await new Promise<void>((resolve) => (notify = resolve));
    }
  } finally {
    opts.signal?.removeEventListener('abort', onAbort);
    poller.stop();
  }
}
