/**
 * Human output of the CLI: the live per-stage progress display (redrawn in place on a
 * TTY, one line per change otherwise), the result summary and the failure chain.
 * Pure functions of PipelineStatus / PipelineResult plus a small writer.
 */
import type {
  PendingDecision,
  PipelineResult,
  PipelineStatus,
  StageName,
  StageStatus,
  VendorTaskRecord,
} from '../../contract/messages';
import { STAGES, pipelineEnded } from '../../contract/messages';
import { kindsOf } from '../../contract/stages';
import { stateText } from '../../contract/details';

export interface OutputStream {
  write(chunk: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

const STAGE_WIDTH = Math.max(...STAGES.map((s) => s.length));

function progressText(p?: { done: number; total: number }): string {
  return p ? `${p.done}/${p.total}` : '';
}

/** Vendor task ids of one stage, e.g. "review rv-1 (completed), rv-2". */
function stageTasks(status: PipelineStatus, stage: StageName): VendorTaskRecord[] {
  const kinds = kindsOf(stage);
  return status.vendorTasks.filter((t) => kinds.includes(t.kind));
}

function taskText(t: VendorTaskRecord): string {
  const notes = [t.state, t.orphan ? 'orphan: may still run at the vendor' : undefined].filter(Boolean);
  return `${t.id}${notes.length ? ` (${notes.join(', ')})` : ''}`;
}

/** The command an operator runs to answer a waiting pipeline. */
export function resolveHint(pipelineId: string, waiting: PendingDecision): string {
  return (
    `waiting for operator (${waiting.stage}, step ${waiting.step}: ${waiting.reason}): ` +
    `run \`reelflow resolve ${pipelineId} --task-id <vendor task id> | --resubmit | --abandon\``
  );
}

/**
 * A stage's state as the operator should read it: `waiting` while it waits for an operator
 * (the query says `running`), `not run` for a stage still pending when the pipeline ended.
 */
function shownState(status: PipelineStatus, stage: StageName, s: StageStatus): string {
  if (status.waiting?.stage === stage) return 'waiting';
  if (s.state === 'pending' && pipelineEnded(status.state)) return 'not run';
  return stateText(s);
}

/**
 * Where the pipeline is: its stage, or `validation` for a pipeline that failed before any
 * stage started (the query still names the first stage then).
 */
function placeText(status: PipelineStatus): string {
  if (status.stage === 'done') return '';
  const started = STAGES.some((st) => status.stages[st] && status.stages[st].state !== 'pending');
  return ` · ${status.state === 'failed' && !started ? 'validation' : status.stage}`;
}

function stageLine(status: PipelineStatus, stage: StageName, s: StageStatus): string {
  const tasks = stageTasks(status, stage);
  const notes = [tasks.length ? `tasks ${tasks.map(taskText).join(', ')}` : '', s.detail ?? ''].filter(Boolean);
  return `  ${stage.padEnd(STAGE_WIDTH)}  ${shownState(status, stage, s).padEnd(9)} ${progressText(s.progress).padEnd(7)} ${notes.join(' · ')}`.replace(
    /\s+$/,
    '',
  );
}

/** The whole display: a header, one line per stage, the waiting hint and the error. */
export function renderStatus(status: PipelineStatus): string[] {
  const id = status.pipelineId;
  const lines = [`${id}  ${status.state}${placeText(status)}`];
  for (const stage of STAGES) {
    const s = status.stages[stage];
    if (!s) continue;
    lines.push(stageLine(status, stage, s));
  }
  if (status.waiting) lines.push(`  ${resolveHint(id, status.waiting)}`);
  const slot = status.slot;
  // Its tenant's concurrency limit (docs/tenants.md): queued for a slot, or holding one.
  if (slot?.state === 'queued')
    lines.push(`  queued for a slot of tenant ${status.tenant} (limit ${slot.limit}) since ${slot.since}`);
  if (slot?.state === 'held') lines.push(`  holds slot ${slot.slot} of ${slot.limit} of tenant ${status.tenant}`);
  if (status.state === 'stuck')
    lines.push('  stuck: the vendor has not finished in the expected time; contact vendor support if it persists');
  if (status.error) lines.push(`  error: ${status.error}`);
  return lines;
}

/** Lines for the vendor tasks that are new or changed state, by the stage they belong to. */
function taskChanges(prev: PipelineStatus | undefined, next: PipelineStatus): Map<StageName, string[]> {
  const known = new Map((prev?.vendorTasks ?? []).map((t) => [`${t.kind}:${t.id}`, t]));
  const out = new Map<StageName, string[]>(STAGES.map((s) => [s, []]));
  for (const stage of STAGES) {
    for (const t of stageTasks(next, stage)) {
      const before = known.get(`${t.kind}:${t.id}`);
      if (!before) out.get(stage)!.push(`vendor ${t.kind} ${taskText(t)} · step ${t.step} (via ${t.via})`);
      else if (before.state !== t.state || before.orphan !== t.orphan)
        out.get(stage)!.push(`vendor ${t.kind} ${taskText(t)}`);
    }
  }
  return out;
}

/** A stage's line, or undefined when nothing of it changed; `tasks`: its task lines printed with it. */
function stageChange(stage: StageName, a: StageStatus | undefined, b: StageStatus, first: boolean, tasks: string[]) {
  const changed =
    !a || a.state !== b.state || progressText(a.progress) !== progressText(b.progress) || a.detail !== b.detail;
  if (!changed || (first && b.state === 'pending')) return undefined;
  // "vendor succeeded" is the task's state, which its own line below says once.
  const detail = tasks.length && /^vendor \S+$/.test(b.detail ?? '') ? undefined : b.detail;
  return `${stage}: ${[stateText(b), progressText(b.progress), detail].filter(Boolean).join(' ')}`;
}

/**
 * What changed between two statuses, one line each (non-TTY output), in the order it
 * happened: the pipeline starting or waiting, each stage with its vendor tasks, the
 * waiting, the error, and last the pipeline's end (after the stage that ended it).
 */
export function statusChanges(prev: PipelineStatus | undefined, next: PipelineStatus): string[] {
  const out: string[] = [];
  const stateChanged = !prev || prev.state !== next.state;
  const ends = pipelineEnded(next.state);
  if (stateChanged && !ends) out.push(`pipeline ${next.state}`);
  const tasks = taskChanges(prev, next);
  for (const stage of STAGES) {
    const b = next.stages[stage];
    const line = b ? stageChange(stage, prev?.stages[stage], b, !prev, tasks.get(stage)!) : undefined;
    if (line) out.push(line);
    out.push(...tasks.get(stage)!);
  }
  const w = next.waiting;
  if (w && (!prev?.waiting || prev.waiting.step !== w.step || prev.waiting.attempt !== w.attempt)) {
    out.push(resolveHint(next.pipelineId, w));
  }
  if (!w && prev?.waiting) out.push(`operator decision taken for ${prev.waiting.step}`);
  if (next.error && next.error !== prev?.error) out.push(`error: ${next.error}`);
  if (stateChanged && ends) out.push(`pipeline ${next.state}`);
  return out;
}

/** Redraws a block of lines in place on a TTY; prints changes line by line otherwise. */
export class ProgressDisplay {
  private drawn = 0;
  private last?: PipelineStatus;
  private lastNote?: string;

  constructor(private readonly out: OutputStream) {}

  get interactive(): boolean {
    return !!this.out.isTTY;
  }

  private fit(line: string): string {
    const width = this.out.columns ?? 0;
    return width > 10 && line.length >= width ? `${line.slice(0, width - 2)}…` : line;
  }

  private redraw(lines: string[]): void {
    let chunk = this.drawn > 0 ? `\x1b[${this.drawn}A\r\x1b[0J` : '';
    chunk += lines.map((l) => `${this.fit(l)}\n`).join('');
    this.out.write(chunk);
    this.drawn = lines.length;
  }

  update(status: PipelineStatus): void {
    if (this.interactive) {
      this.lastNote = undefined;
      this.redraw(renderStatus(status));
    } else {
      for (const line of statusChanges(this.last, status)) this.out.write(`${line}\n`);
    }
    this.last = status;
  }

  /** A transient note ("waiting for a worker…"): once per distinct text. */
  note(text: string): void {
    if (text === this.lastNote) return;
    this.lastNote = text;
    if (this.interactive) {
      const lines = this.last ? [...renderStatus(this.last), `  ${text}`] : [text];
      this.redraw(lines);
    } else {
      this.out.write(`${text}\n`);
    }
  }

  /** Leave the block as is; later output goes below it. */
  finish(): void {
    this.drawn = 0;
  }
}

function timingText(ms?: number): string {
  if (ms === undefined) return '';
  return ms >= 60_000 ? `${(ms / 60_000).toFixed(1)} min` : `${(ms / 1000).toFixed(1)} s`;
}

/** The result, for people: what each stage produced, where the files are, what it cost. */
export function renderResult(result: PipelineResult): string[] {
  const lines = [`pipeline ${result.pipelineId} completed`];
  const t = result.timings ?? {};
  const took = (stage: keyof typeof t) => (t[stage] !== undefined ? ` (${timingText(t[stage])})` : '');
  if (result.review) {
    const passed = result.review.items.filter((i) => i.passed).length;
    lines.push(`  review${took('review')}: ${passed}/${result.review.items.length} passed`);
    for (const item of result.review.items) {
      const why = item.passed
        ? (item.assetUrl ?? '')
        : `not passed${item.errorCode ? ` ${item.errorCode}` : ''}${item.errorMessage ? `: ${item.errorMessage}` : ''}`;
      lines.push(`    #${item.index} ${item.sourceUrl} → ${why}`);
    }
  }
  if (result.assets) {
    const a = result.assets;
    lines.push(
      `  assets${took('assets')}: group ${a.groupId}${a.groupName ? ` "${a.groupName}"` : ''}${a.groupCreated ? ' (created)' : ''}`,
    );
    for (const item of a.items) lines.push(`    ${item.name} → ${item.assetUrl} (${item.status})`);
  }
  if (result.generation) {
    const g = result.generation;
    lines.push(`  generation${took('generation')}: task ${g.taskId}`);
    lines.push(`    video ${g.videoUrl} (valid until ${g.videoUrlExpiresAt})`);
  }
  if (result.erase) {
    lines.push(`  erase${took('erase')}: task ${result.erase.taskId}`);
    lines.push(`    video ${result.erase.videoUrl}`);
  }
  if (result.archived?.length) {
    lines.push(`  archived${took('archive')}:`);
    for (const f of result.archived) lines.push(`    ${f.path} (${f.bytes} bytes, sha256 ${f.sha256.slice(0, 16)}…)`);
  }
  const erase = result.cost?.erase;
  if (erase)
    lines.push(
      `  cost: erase ${erase.calls} × ${erase.unitPrice} ${erase.currency} = ${erase.total} ${erase.currency}`,
    );
  const calls = Object.entries(result.calls ?? {});
  if (calls.length) lines.push(`  vendor calls: ${calls.map(([k, v]) => `${k} ${v}`).join(', ')}`);
  const orphans = (result.vendorTasks ?? []).filter((v) => v.orphan);
  if (orphans.length)
    lines.push(
      `  orphaned vendor tasks (may still run and cost): ${orphans.map((o) => `${o.kind} ${o.id}`).join(', ')}`,
    );
  return lines;
}

/** "failed: <outer>" then "  caused by: <inner>" for each link of the chain. */
export function renderFailure(label: string, messages: string[]): string[] {
  const [first, ...rest] = messages;
  return [`${label}: ${first ?? 'unknown error'}`, ...rest.map((m) => `  caused by: ${m}`)];
}
