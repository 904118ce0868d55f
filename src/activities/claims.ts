/**
 * Facts about a task id that a callback offered, for the workflow's proof
 * (src/workflows/lib/callbacks/offers.ts): what the vendor's own query answers for it, and which
 * other pipelines claim it by the search attribute ReelflowVendorTaskIds (a visibility
 * list, with the Temporal client the worker gives activities). Reads only.
 *
 * The answer is read defensively, field by field with typeof checks: the vendor client's
 * schemas keep unknown fields, and may or may not type `model` and `created_at`.
 */
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { FailureType } from '../failures';
import { countedCall } from '../metrics/activity';
import { MIN_QUERY_INTERVAL_MS } from '../vendor-api/assumed-values';
import { QuerySpacing, taskKey } from './query-spacing';
import { RejectedError, toFailureInfo, VendorError } from '../vendor-api/errors';
import {
  TASK_ID_PATTERN,
  type InspectOfferedTaskInput,
  type OfferedTaskFacts,
  type OfferedTaskKind,
  type OwnChain,
} from '../contract/offers';
import { VENDOR_TASK_IDS } from '../contract/search-attributes';
import type { ActivityDeps } from './deps';

interface ClaimRow {
  runId: string;
  startTime: Date;
  raw?: { firstRunId?: string | null };
}

/**
 * Whether a visibility row of `chain.workflowId` is a run of that chain: by its first run id
 * where the server lists it, else by its start (runs of the chain start at or after its first
 * run, `firstStartMs`; a run of an earlier pipeline before). Unknown first start (that run is
 * past retention, and so is any earlier pipeline): own.
 */
export function ofChain(row: ClaimRow, chain: OwnChain, firstStartMs: number | undefined): boolean {
  if (row.runId === chain.firstRunId) return true;
  const first = row.raw?.firstRunId;
  if (first) return first === chain.firstRunId;
  return firstStartMs === undefined || row.startTime.getTime() >= firstStartMs;
}

/** Claims listed at most (one is enough to refuse), and visibility rows read at most. */
const MAX_CLAIMS = 5;
const MAX_ROWS = 100;
const MAX_SOURCE_URLS = 100;

/** The vendor query each kind of offered task is checked with (the client's endpoint names). */
const ENDPOINT_OF: Record<OfferedTaskKind, string> = {
  generation: 'generation.get',
  erase: 'erase.get',
  review: 'review.getTask',
};

type Loose = Record<string, unknown>;

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** Unix seconds; a value too large for seconds (after year 5138) is read as milliseconds. */
function unixSeconds(v: unknown): number | undefined {
  if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) return undefined;
  return v > 1e11 ? Math.floor(v / 1000) : v;
}

export function readFacts(kind: OfferedTaskKind, a: Loose): Omit<OfferedTaskFacts, 'found' | 'claimedBy'> {
  const facts: Omit<OfferedTaskFacts, 'found' | 'claimedBy'> = {};
  const id = str(kind === 'generation' ? a.id : a.task_id);
  if (id !== undefined) facts.id = id;
  const model = str(a.model);
  if (model !== undefined) facts.model = model;
  const created = unixSeconds(a.created_at);
  if (created !== undefined) facts.createdAtSec = created;
  if (kind === 'review') {
    if (typeof a.total_count === 'number') facts.itemCount = a.total_count;
    const items = (a.result as Loose | undefined)?.items;
    if (Array.isArray(items)) {
      facts.sourceUrls = items
        .map((i) => str((i as Loose | null)?.source_url))
        .filter((u): u is string => u !== undefined)
        .slice(0, MAX_SOURCE_URLS);
    }
  }
  return facts;
}

function failureOf(err: unknown): unknown {
  if (!(err instanceof VendorError)) return err;
  const info = toFailureInfo(err);
  return ApplicationFailure.create({
    type: info.type,
    message: info.message,
    nonRetryable: !info.retryable,
    details: [info],
    ...(info.retryAfterMs !== undefined ? { nextRetryDelay: info.retryAfterMs } : {}),
  });
}

/** `spacing` holds this query apart from the stage's own queries of the same task (query-spacing.ts). */
export function createClaimActivities(deps: Pick<ActivityDeps, 'vendorFor'>, spacing = new QuerySpacing()) {
  async function vendorAnswer(input: InspectOfferedTaskInput, signal: AbortSignal): Promise<Loose> {
    const v = deps.vendorFor(input.profile);
    // Keyed by the table's kinds: a kind a callback may offer needs its query here.
    const answer: Record<OfferedTaskKind, () => Promise<Loose>> = {
      generation: async () => ({ ...(await v.generation.get(input.taskId, { signal })) }),
      erase: () => v.erase.get(input.taskId, { signal }),
      review: () => v.review.getTask(input.taskId, { signal }),
    };
    return await answer[input.kind]();
  }

  async function claimsOf(taskId: string, exclude: readonly string[], chain?: OwnChain): Promise<string[]> {
    // The id is checked against TASK_ID_PATTERN first: no quote can end the literal.
    const query = `${VENDOR_TASK_IDS.name} = '${taskId}'`;
    const others: string[] = [];
    let rows = 0;
    const { client } = Context.current();
    let firstStart: Promise<number | undefined> | undefined;
    for await (const wf of client.workflow.list({ query, pageSize: 20 })) {
      const sameId = chain !== undefined && chain.workflowId === wf.workflowId;
      if (sameId) firstStart ??= startOf(chain);
      const own = sameId ? ofChain(wf, chain, await firstStart) : exclude.includes(wf.workflowId);
      const name = sameId ? `${wf.workflowId} (an earlier run, ${wf.runId})` : wf.workflowId;
      if (!own && !others.includes(name)) others.push(name);
      if (others.length >= MAX_CLAIMS || ++rows >= MAX_ROWS) break;
    }
    return others;
  }

  /** When the chain's first run started, by the server's clock; undefined when it cannot be described. */
  async function startOf(chain: OwnChain): Promise<number | undefined> {
    try {
      const d = await Context.current().client.workflow.getHandle(chain.workflowId, chain.firstRunId).describe();
      return d.startTime.getTime();
    } catch {
      return undefined;
    }
  }

  return {
    /** One vendor query of the offered task, then (if the vendor knows it) one visibility list. */
    inspectOfferedTask: async (input: InspectOfferedTaskInput): Promise<OfferedTaskFacts> => {
      if (!TASK_ID_PATTERN.test(input.taskId)) {
        throw ApplicationFailure.nonRetryable(
          'taskId: not a vendor task id (letters, digits, . _ : - only)',
          FailureType.RejectedError,
        );
      }
      const endpoint = ENDPOINT_OF[input.kind];
      const key = taskKey(endpoint, input.taskId);
      const minMs = MIN_QUERY_INTERVAL_MS[input.kind];
      const signal = Context.current().cancellationSignal;
      let answer: Loose;
      try {
        answer = await spacing.spaced(
          key,
          minMs,
          () => countedCall(endpoint, () => vendorAnswer(input, signal)),
          signal,
        );
      } catch (err) {
        if (err instanceof VendorError && (err.status === 404 || err instanceof RejectedError)) {
          return { found: false, notFound: err.message, claimedBy: [] };
        }
        throw failureOf(err);
      }
      const facts: OfferedTaskFacts = {
        found: true,
        ...readFacts(input.kind, answer),
        claimedBy: await claimsOf(input.taskId, input.exclude, input.chain),
      };
      // The stage queries this task next once this result is back, maybe on another worker
      // that this spacing does not reach: so return an interval after this query ended
      // (docs/vendor-contract.md, "What we assume where the documentation is silent").
      await spacing.settled(key, minMs, signal);
      return facts;
    },
  };
}
