/**
 * One poller per watched pipeline, shared by every subscriber of it (docs/api.md, "Events";
 * the measured comparison with Workflow Streams and worker sinks is in docs/benchmarks.md):
 * N browsers on one pipeline cost one status query per interval, and no history event at all
 * (a query is answered by the worker without a workflow task's record). A subscriber gets the
 * latest change at once, then each change; the poller stops with its last subscriber.
 */
import type { Client } from '@temporalio/client';
import { PipelinePoller, type PipelineChange } from '../client/watch';

export interface Subscriber {
  change(c: PipelineChange): void;
  /** The pipeline could not be watched (it vanished, the connection failed). */
  error(err: unknown): void;
}

interface Entry {
  poller: PipelinePoller;
  subscribers: Set<Subscriber>;
  last?: PipelineChange;
}

export interface HubOptions {
  pollMs: number;
  onQuery?: () => void;
}

export class StatusHub {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly client: Client,
    private readonly opts: HubOptions,
  ) {}

  /** Pipelines watched now (one poller each). */
  get pollers(): number {
    return this.entries.size;
  }

  /** Subscribes; returns the unsubscribe. The latest change, if any, is delivered at once. */
  subscribe(pipelineId: string, sub: Subscriber): () => void {
    const entry = this.entries.get(pipelineId) ?? this.open(pipelineId);
    entry.subscribers.add(sub);
    if (entry.last) sub.change(entry.last);
    return () => {
      entry.subscribers.delete(sub);
      if (entry.subscribers.size === 0 && this.entries.get(pipelineId) === entry) {
        entry.poller.stop();
        this.entries.delete(pipelineId);
      }
    };
  }

  private open(pipelineId: string): Entry {
    const entry = { subscribers: new Set<Subscriber>() } as Entry;
    const emit = (c: PipelineChange) => {
      entry.last = c;
      if (c.kind === 'end') this.entries.delete(pipelineId);
      for (const s of [...entry.subscribers]) s.change(c);
    };
    const fail = (err: unknown) => {
      this.entries.delete(pipelineId);
      for (const s of [...entry.subscribers]) s.error(err);
    };
    entry.poller = new PipelinePoller(
      this.client,
      pipelineId,
      emit,
      { intervalMs: this.opts.pollMs, ...(this.opts.onQuery ? { onQuery: this.opts.onQuery } : {}) },
      fail,
    );
    this.entries.set(pipelineId, entry);
    return entry;
  }

  close(): void {
    for (const e of this.entries.values()) e.poller.stop();
    this.entries.clear();
  }
}
