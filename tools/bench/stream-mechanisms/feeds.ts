/**
 * The subscriber side of each mechanism the stream-mechanisms bench compares (docs/benchmarks.md,
 * "Gateway event streams"): what a gateway would run, in the bench process.
 *
 * - query: one poller per workflow shared by its subscribers, as the gateway's StatusHub and
 *   PipelinePoller do (src/starters/gateway/status-hub.ts, src/starters/client/watch.ts): a
 *   status query every interval (500 ms), deadline 5 s, an event when the version is new;
 *   the end from a long poll on the result, then one more query for the final state.
 * - streams: every subscriber its own `WorkflowStreamClient.create(client, id)
 *   .topic('status').subscribe(0)` (one Update long poll per subscriber);
 * - streams-shared: one such subscription per workflow, fanned out to its subscribers (what
 *   a gateway would do, as it shares its pollers);
 * - sinks: the worker POSTs each snapshot to the SinkReceiver (the gateway stand-in), which
 *   hands it to the workflow's subscribers; the end is the last snapshot, with a long poll on
 *   the result as the safety net a gateway would need anyway.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Client } from '@temporalio/client';
import { WorkflowStreamClient } from '@temporalio/workflow-streams/client';
import { benchStatusQuery, STATUS_TOPIC, type Snapshot, type WorkflowMechanism } from './workflow';

/** What the bench runs: a workflow mechanism with its subscriber side; `none` is the unwatched baseline. */
export type Mechanism = 'none' | 'query' | 'streams' | 'streams-shared' | 'sinks';
export const MECHANISMS: readonly Mechanism[] = ['none', 'query', 'streams', 'streams-shared', 'sinks'];

export function workflowMechanism(m: Mechanism): WorkflowMechanism {
  if (m === 'none') return 'query';
  return m === 'streams-shared' ? 'streams' : m;
}

export type Listener = (s: Snapshot) => void;

/** A mechanism's subscriber side: `subscribe` resolves when that workflow's stream has ended. */
export interface Feed {
  subscribe(workflowId: string, listener: Listener): Promise<void>;
}

/** Produces one workflow's snapshots for every subscriber of it; resolves at its end. */
type Source = (workflowId: string, emit: Listener) => Promise<void>;

interface Entry {
  listeners: Set<Listener>;
  last?: Snapshot;
  done: Promise<void>;
}

/** One source per workflow shared by all its subscribers; a late subscriber gets the latest snapshot at once. */
class Hub implements Feed {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly source: Source) {}

  subscribe(workflowId: string, listener: Listener): Promise<void> {
    const entry = this.entries.get(workflowId) ?? this.open(workflowId);
    entry.listeners.add(listener);
    if (entry.last) listener(entry.last);
    return entry.done;
  }

  private open(workflowId: string): Entry {
    const entry: Entry = { listeners: new Set(), done: Promise.resolve() };
    this.entries.set(workflowId, entry);
    const emit = (s: Snapshot) => {
      if (entry.last && s.version <= entry.last.version) return;
      entry.last = s;
      for (const l of entry.listeners) l(s);
    };
    entry.done = this.source(workflowId, emit).finally(() => this.entries.delete(workflowId));
    return entry;
  }
}

/**
 * Workflow Streams' subscriber setting, its default made explicit: after each answered poll a
 * subscriber waits this long before the next, so changes closer together than this come in one
 * poll. With changes a second apart it adds no latency; 0 would add Updates, not speed. The
 * workflow side publishes with no batching (batchInterval and forceFlush are the client-side
 * publisher's, which the bench does not use): each snapshot is in the log when `publish` returns.
 */
const POLL_COOLDOWN = '100 milliseconds';

const settle = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    () => undefined,
  );
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function querySource(client: Client, intervalMs: number): Source {
  return async (workflowId, emit) => {
    const handle = client.workflow.getHandle(workflowId);
    let settled = false;
    let wake: (() => void) | undefined;
    const ended = settle(handle.result()).then(() => {
      settled = true;
      wake?.();
    });
    const poll = async () => {
      try {
        emit(await client.withDeadline(Date.now() + 5_000, () => handle.query(benchStatusQuery)));
      } catch {
        // Not answered (no worker yet, the first workflow task not done): polling goes on, as the gateway's does.
      }
    };
    while (!settled) {
      await poll();
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, intervalMs).unref();
      });
    }
    await poll(); // the final state, as the gateway's poller does (a closed workflow is replayed to answer)
    await ended;
  };
}

function streamSource(client: Client): Source {
  return async (workflowId, emit) => {
    const topic = WorkflowStreamClient.create(client, workflowId).topic<Snapshot>(STATUS_TOPIC);
    for await (const item of topic.subscribe(0, { pollCooldown: POLL_COOLDOWN })) emit(item.data);
  };
}

/** The gateway stand-in of the sink path: an HTTP endpoint the bench worker POSTs each snapshot to. */
export class SinkReceiver {
  private readonly latest = new Map<string, Snapshot>();
  private readonly listeners = new Map<string, Listener>();
  pushes = 0;
  url = '';

  private constructor(private readonly server: Server) {}

  static async start(): Promise<SinkReceiver> {
    const receiver: SinkReceiver = new SinkReceiver(createServer((req, res) => receiver.onRequest(req, res)));
    await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
    receiver.url = `http://127.0.0.1:${(receiver.server.address() as AddressInfo).port}/status`;
    return receiver;
  }

  private onRequest(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      this.pushes++;
      const { workflowId, snapshot } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        workflowId: string;
        snapshot: Snapshot;
      };
      const seen = this.latest.get(workflowId);
      if (!seen || snapshot.version > seen.version) this.latest.set(workflowId, snapshot);
      this.listeners.get(workflowId)?.(snapshot);
      res.writeHead(204).end();
    });
  }

  /** Calls `listener` with the latest snapshot received, if any, then with each one pushed. */
  listen(workflowId: string, listener: Listener): () => void {
    this.listeners.set(workflowId, listener);
    const seen = this.latest.get(workflowId);
    if (seen) listener(seen);
    return () => this.listeners.delete(workflowId);
  }

  /** Forgets a run's workflows. */
  reset(): void {
    this.latest.clear();
    this.listeners.clear();
    this.pushes = 0;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

function sinkSource(client: Client, receiver: SinkReceiver): Source {
  return async (workflowId, emit) => {
    let unlisten = () => undefined as unknown;
    const lastSeen = new Promise<void>((resolve) => {
      unlisten = receiver.listen(workflowId, (s) => {
        emit(s);
        if (s.last) resolve();
      });
    });
    // The result long poll ends a stream whose last push never came (a real gateway needs it: sinks do not replay).
    const ended = settle(client.workflow.getHandle(workflowId).result()).then(() => sleep(2_000));
    await Promise.race([lastSeen, ended]);
    unlisten();
  };
}

/** Every subscriber its own Workflow Streams subscription, as the package's README shows. */
class StreamsFeed implements Feed {
  constructor(private readonly client: Client) {}

  async subscribe(workflowId: string, listener: Listener): Promise<void> {
    const topic = WorkflowStreamClient.create(this.client, workflowId).topic<Snapshot>(STATUS_TOPIC);
    for await (const item of topic.subscribe(0, { pollCooldown: POLL_COOLDOWN })) listener(item.data);
  }
}

export function feedFor(mechanism: Mechanism, client: Client, receiver: SinkReceiver, pollMs: number): Feed {
  switch (mechanism) {
    case 'none':
    case 'query':
      return new Hub(querySource(client, pollMs));
    case 'streams':
      return new StreamsFeed(client);
    case 'streams-shared':
      return new Hub(streamSource(client));
    case 'sinks':
      return new Hub(sinkSource(client, receiver));
  }
}
