/**
 * The chaos run's invariants: pure functions over the emulator's inspection snapshot
 * (what the vendor holds), the workflows' results and final statuses, and what the
 * archive folder holds. Never over logs. Each returns how many violations it found,
 * how many things it checked, and the first few violations, readable.
 *
 * Attribution: every vendor record carries its pipeline's tag (pNNN) — review URLs,
 * group names, the generation prompt — and the rest follows by id: an asset by its
 * group, an erase task by the generation task it erased.
 */
import type { InspectionSnapshot } from '../../src/emulator/inspection';
import type { PipelineResult, PipelineStatus, VendorTaskKind } from '../../src/contract/messages';
import type { RequestRecord } from '../../src/emulator/request-log';
import { tagIn, type PlannedPipeline } from './chaos-plan';
import { natural429s } from './rate-window';

export type OutcomeState = 'completed' | 'failed' | 'cancelled' | 'terminated' | 'timed-out' | 'not-finished';

export interface PipelineOutcome {
  index: number;
  tag: string;
  workflowId: string;
  state: OutcomeState;
  /** Innermost failure message, for a failed pipeline. */
  error?: string;
  result?: PipelineResult;
  /** Final `status` query (best effort; the only source of task ids for a failed pipeline). */
  status?: PipelineStatus;
  durationMs?: number;
}

/** What the archive holds for one path: undefined when the file is missing. */
export interface ArchivedFileOnDisk {
  sha256?: string;
  /** First token of `<file>.sha256`, when present. */
  sidecar?: string;
}

export interface InvariantResult {
  id: string;
  title: string;
  /** Precise definition, printed in the report. */
  definition: string;
  violations: number;
  checked: number;
  pass: boolean;
  examples: string[];
  /** Extra counts shown in the report (e.g. duplicates by kind). */
  breakdown?: Record<string, number>;
}

const MAX_EXAMPLES = 10;

/** An invariant's result from its problems (the first MAX_EXAMPLES of them as examples). */
export function result(
  id: string,
  title: string,
  definition: string,
  checked: number,
  problems: string[],
  breakdown?: Record<string, number>,
): InvariantResult {
  return {
    id,
    title,
    definition,
    violations: problems.length,
    checked,
    pass: problems.length === 0,
    examples: problems.slice(0, MAX_EXAMPLES),
    ...(breakdown ? { breakdown } : {}),
  };
}

/** What the invariants read of the emulator's inspection. */
export type ChaosSnapshot = Pick<
  InspectionSnapshot,
  'generationTasks' | 'eraseTasks' | 'groups' | 'assets' | 'reviewTasks' | 'counters'
>;
type Snapshot = ChaosSnapshot;

/** A vendor record reelflow creates, with the pipeline it belongs to. */
export interface AttributedRecord {
  kind: VendorTaskKind;
  id: string;
  /** Pipeline tag, or undefined when the record cannot be tied to one. */
  tag?: string;
  /** Records with the same key are duplicates of one another. */
  key: string;
}

/**
 * Every vendor record a pipeline creates, keyed so that two records with one key are
 * duplicates:
 * - review task: pipeline tag + its batch (the sorted URL list);
 * - asset group: owner + Name (system groups excluded);
 * - asset: GroupId + Name, only assets made by CreateAsset (review makes assets of its
 *   own in the user's default group: a by-product, not a task reelflow creates);
 * - generation task: pipeline tag (from the prompt);
 * - erase task: pipeline tag of the generation task it erases.
 */
export function attributeRecords(s: Snapshot): AttributedRecord[] {
  const out: AttributedRecord[] = [];
  for (const r of s.reviewTasks) {
    const tags = new Set(r.urls.map((u) => tagIn(u)));
    const tag = tags.size === 1 ? [...tags][0] : undefined;
    out.push({ kind: 'review', id: r.taskId, tag, key: `${tag ?? `?${r.taskId}`}|${[...r.urls].sort().join(' ')}` });
  }
  const groupTag = new Map<string, string | undefined>();
  for (const g of s.groups) {
    if (g.system) continue;
    const tag = tagIn(g.Name);
    groupTag.set(g.Id, tag);
    out.push({ kind: 'assetGroup', id: g.Id, tag, key: `${g.owner}|${g.Name}` });
  }
  for (const a of s.assets) {
    if (a.origin !== 'CreateAsset') continue;
    out.push({ kind: 'asset', id: a.Id, tag: groupTag.get(a.GroupId), key: `${a.GroupId}|${a.Name}` });
  }
  const genTag = new Map<string, string | undefined>();
  for (const g of s.generationTasks) {
    const tag = tagIn(g.prompt);
    genTag.set(g.id, tag);
    out.push({ kind: 'generation', id: g.id, tag, key: tag ?? `?${g.id}` });
  }
  for (const e of s.eraseTasks) {
    const tag = genTag.get(e.generationTaskId);
    out.push({ kind: 'erase', id: e.taskId, tag, key: tag ?? `?${e.taskId}` });
  }
  return out;
}

/** 1. Every pipeline reaches the terminal state it was built for. */
export function checkTerminalStates(plan: PlannedPipeline[], outcomes: PipelineOutcome[]): InvariantResult {
  const byIndex = new Map(outcomes.map((o) => [o.index, o]));
  const problems: string[] = [];
  for (const p of plan) {
    const o = byIndex.get(p.index);
    if (!o) {
      problems.push(`${p.workflowId}: no outcome recorded`);
      continue;
    }
    if (o.state !== p.expect.state) {
      problems.push(`${p.workflowId}: ${o.state}${o.error ? ` (${o.error})` : ''}, expected ${p.expect.state}`);
      continue;
    }
    if (p.expect.state === 'failed') {
      const stage = o.status?.stages?.[p.expect.stage]?.state;
      const byVendor = /ended failed/.test(o.error ?? '');
      if (stage !== 'failed' || !byVendor) {
        problems.push(
          `${p.workflowId}: failed, but not as built to (stage ${p.expect.stage} is ${stage ?? 'unknown'}; error: ${o.error ?? 'none'})`,
        );
      }
    }
  }
  return result(
    'terminal-state',
    'Every pipeline reaches its expected terminal state',
    'completed, except pipelines built to fail (every 20th: prompt carries "fail-generation", the vendor fails the ' +
      'generation task), which must end failed in stage generation with the vendor\'s "ended failed"',
    plan.length,
    problems,
  );
}

/** 2. Zero duplicate vendor records of any kind, and none that cannot be attributed. */
export function checkNoDuplicates(s: Snapshot): InvariantResult {
  const records = attributeRecords(s);
  const byKey = new Map<string, AttributedRecord[]>();
  for (const r of records) {
    const k = `${r.kind}|${r.key}`;
    byKey.set(k, [...(byKey.get(k) ?? []), r]);
  }
  const problems: string[] = [];
  const breakdown: Record<string, number> = {
    review: 0,
    assetGroup: 0,
    asset: 0,
    generation: 0,
    erase: 0,
    unattributed: 0,
  };
  for (const rs of byKey.values()) {
    if (rs.length > 1) {
      breakdown[rs[0].kind] = (breakdown[rs[0].kind] ?? 0) + rs.length - 1;
      for (const extra of rs.slice(1)) {
        problems.push(
          `duplicate ${extra.kind} for ${extra.tag ?? '?'}: ${rs.map((r) => r.id).join(', ')} (key ${rs[0].key})`,
        );
      }
    }
  }
  for (const r of records) {
    if (r.tag === undefined) {
      breakdown.unattributed += 1;
      problems.push(`${r.kind} ${r.id} belongs to no pipeline of this run`);
    }
  }
  return result(
    'no-duplicates',
    'Zero duplicate vendor tasks of any kind',
    'per pipeline at most: 1 review task per planned batch (same URL set), 1 generation task, 1 erase task; ' +
      'asset groups unique by (owner, Name) (system groups excluded); assets made by CreateAsset unique by (GroupId, Name); ' +
      'and every such record attributable to a pipeline of this run',
    records.length,
    problems,
    breakdown,
  );
}

/** Every (kind, id) a pipeline reported: vendorTasks of result and status, plus stage results. */
export function reportedIds(o: PipelineOutcome): { kind: VendorTaskKind; id: string }[] {
  const seen = new Map<string, { kind: VendorTaskKind; id: string }>();
  const add = (kind: VendorTaskKind, id: string | undefined) => {
    if (id) seen.set(`${kind}|${id}`, { kind, id });
  };
  for (const t of [...(o.result?.vendorTasks ?? []), ...(o.status?.vendorTasks ?? [])]) add(t.kind, t.id);
  const r = o.result;
  r?.review?.batches.forEach((b) => add('review', b.taskId));
  if (r?.assets) {
    add('assetGroup', r.assets.groupId);
    r.assets.items.forEach((i) => add('asset', i.assetId));
  }
  add('generation', r?.generation?.taskId);
  add('erase', r?.erase?.taskId);
  return [...seen.values()];
}

/** 3. Every vendor task id a workflow reported exists at the vendor, and is its own. */
export function checkReportedIdsExist(outcomes: PipelineOutcome[], s: Snapshot): InvariantResult {
  const records = new Map(attributeRecords(s).map((r) => [`${r.kind}|${r.id}`, r]));
  const problems: string[] = [];
  let checked = 0;
  for (const o of outcomes) {
    for (const { kind, id } of reportedIds(o)) {
      checked += 1;
      const rec = records.get(`${kind}|${id}`);
      if (!rec) problems.push(`${o.workflowId}: reported ${kind} ${id}, which the vendor does not have`);
      else if (rec.tag !== o.tag)
        problems.push(`${o.workflowId}: reported ${kind} ${id}, which belongs to ${rec.tag ?? 'no pipeline'}`);
    }
  }
  return result(
    'reported-ids-exist',
    'Every reported vendor task id exists at the vendor',
    "each (kind, id) in a pipeline's result (vendorTasks and stage results) or final status query exists in the " +
      "emulator's inspection under that kind, and is attributed to that same pipeline",
    checked,
    problems,
  );
}

/** 4. No vendor record that its pipeline does not know about (a task paid for, unseen). */
export function checkNoUnknownRecords(outcomes: PipelineOutcome[], s: Snapshot): InvariantResult {
  const known = new Map<string, Set<string>>();
  for (const o of outcomes) known.set(o.tag, new Set(reportedIds(o).map((r) => `${r.kind}|${r.id}`)));
  const problems: string[] = [];
  const records = attributeRecords(s).filter((r) => r.tag !== undefined);
  for (const r of records) {
    if (!known.get(r.tag!)?.has(`${r.kind}|${r.id}`))
      problems.push(`${r.kind} ${r.id} of ${r.tag} is not in that pipeline's result or status`);
  }
  return result(
    'no-unknown-records',
    'Every vendor task is known to its pipeline',
    'each attributable vendor record (as in no-duplicates) appears among the ids its pipeline reported: no task exists ' +
      'at the vendor (and costs) that the workflow does not show',
    records.length,
    problems,
  );
}

/**
 * 5. Zero 429s other than the injected ones, on every endpoint: GetAsset's 10/s per token
 * and each query's minimum interval per task are the vendor's rules. Each natural 429
 * the request log holds is shown with the requests of the same task before it.
 */
export function checkNatural429(s: Snapshot, requests: RequestRecord[] = []): InvariantResult {
  const natural = natural429s(s.counters);
  const total = Object.values(s.counters.rateLimited429).reduce((a, b) => a + b, 0);
  const count = Object.values(natural).reduce((a, b) => a + b, 0);
  const traced = trailsOf(requests);
  const untraced = Object.entries(natural).flatMap(([endpoint, n]) =>
    Array.from({ length: Math.max(0, n - traced.filter((t) => t.endpoint === endpoint).length) }, () =>
      endpoint === 'assets.GetAsset'
        ? "GetAsset answered 429 RateLimitExceeded by the vendor's own rate limit"
        : `${endpoint} answered 429 by the vendor's own limit`,
    ),
  );
  return {
    ...result(
      'natural-429',
      'Zero 429s (beyond those injected)',
      'emulator counters, per endpoint: rateLimited429 (every 429 it answered) minus faultsByEndpoint[…].rateLimit429 ' +
        "(the injected ones) = 429s from the vendor's own limits (GetAsset 10/s per token, a query's minimum " +
        'interval per task); must be 0. Each is shown with the earlier requests of its task',
      total,
      [...traced.map((t) => t.text), ...untraced].slice(0, MAX_EXAMPLES),
      { total429: total, injected429: total - count, natural429: count, ...prefixed(natural) },
    ),
    violations: count,
    pass: count <= 0,
  };
}

const prefixed = (r: Record<string, number>) =>
  Object.fromEntries(Object.entries(r).map(([endpoint, n]) => [`natural429 ${endpoint}`, n]));

const TRAIL_MS = 5_000;

/** The first 429s no fault injected, each with the requests of its task in the 5 s before it (times relative to it). */
function trailsOf(requests: RequestRecord[]): { endpoint: string; text: string }[] {
  const out: { endpoint: string; text: string }[] = [];
  for (const r of requests) {
    if (out.length >= MAX_EXAMPLES) break;
    if (r.status !== 429 || r.faults.length > 0 || !r.endpoint) continue;
    const at = Date.parse(r.at);
    const before = requests.filter(
      (e) => e.seq < r.seq && e.resourceId === r.resourceId && r.resourceId && at - Date.parse(e.at) <= TRAIL_MS,
    );
    const trail = before.map(
      (e) => `${Date.parse(e.at) - at} ms ${e.endpoint ?? e.method} → ${e.status} (${e.durationMs} ms)`,
    );
    out.push({
      endpoint: r.endpoint,
      text: `${r.endpoint} ${r.resourceId ?? ''} answered 429 at ${r.at}; before it: ${trail.join('; ') || 'nothing within 5 s'}`,
    });
  }
  return out;
}

/** 6. No result lost: every successful pipeline's archived files exist with matching checksums. */
export function checkNoResultLost(
  outcomes: PipelineOutcome[],
  files: Map<string, ArchivedFileOnDisk>,
  expected: { names: string[]; sha256: Record<string, string> },
): InvariantResult {
  const problems: string[] = [];
  let checked = 0;
  for (const o of outcomes) {
    if (o.state !== 'completed') continue;
    const archived = o.result?.archived ?? [];
    for (const name of expected.names) {
      checked += 1;
      // "generated" or "generated.mp4": the archive keeps the video's extension.
      const a = archived.find((x) => x.name === name || x.name.startsWith(`${name}.`));
      if (!a) {
        problems.push(`${o.workflowId}: no archived "${name}" in the result`);
        continue;
      }
      const disk = files.get(a.path);
      if (!disk?.sha256) problems.push(`${o.workflowId}: ${a.path} is missing`);
      else if (disk.sha256 !== a.sha256)
        problems.push(`${o.workflowId}: ${a.path} sha256 ${disk.sha256} ≠ reported ${a.sha256}`);
      else if (disk.sidecar !== a.sha256)
        problems.push(`${o.workflowId}: ${a.path}.sha256 says ${disk.sidecar ?? 'nothing'}`);
      else if (expected.sha256[name] && a.sha256 !== expected.sha256[name]) {
        problems.push(`${o.workflowId}: ${name} sha256 ${a.sha256} ≠ the vendor's video ${expected.sha256[name]}`);
      }
    }
  }
  return result(
    'no-result-lost',
    'No result lost',
    'every completed pipeline\'s result lists its archived "generated" and "erased" videos; each file exists, its ' +
      'sha256 equals the reported one and its .sha256 file, and equals the sha256 of the video the vendor serves',
    checked,
    problems,
  );
}

export function checkAll(input: {
  plan: PlannedPipeline[];
  outcomes: PipelineOutcome[];
  snapshot: Snapshot;
  files: Map<string, ArchivedFileOnDisk>;
  expectedArchive: { names: string[]; sha256: Record<string, string> };
  /** The emulator's request log, to show each natural 429 with its task's earlier requests. */
  requests?: RequestRecord[];
}): InvariantResult[] {
  return [
    checkTerminalStates(input.plan, input.outcomes),
    checkNoDuplicates(input.snapshot),
    checkReportedIdsExist(input.outcomes, input.snapshot),
    checkNoUnknownRecords(input.outcomes, input.snapshot),
    checkNatural429(input.snapshot, input.requests),
    checkNoResultLost(input.outcomes, input.files, input.expectedArchive),
  ];
}
