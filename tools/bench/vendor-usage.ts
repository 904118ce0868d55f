/**
 * What the vendor saw, from the emulator's inspection API (the emulator runs in its own
 * process): every request by endpoint and status (the request log keeps only the last
 * 5,000, so it is drained while the run goes on), and every task it processed, tied to
 * its pipeline by the index the workload wrote into it.
 */
import type { InspectionSnapshot, RequestRecord } from '../../src/emulator';
import {
  ASSET_TERMINAL_STATES,
  ERASE_TERMINAL_STATES,
  GENERATION_TERMINAL_STATES,
  REVIEW_TERMINAL_STATES,
} from '../../src/vendor-api/assumed-values';
import { WindowCollector } from './rate-window';
import { PROMPT_INDEX, URL_INDEX, type BenchStage } from './workload';

async function getJson<T>(url: string): Promise<T> {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`GET ${url}: HTTP ${res.status}`);
  return (await res.json()) as T;
}

export interface EndpointCount {
  total: number;
  /** Answers by status ("reset" when the emulator dropped the socket). */
  byStatus: Record<string, number>;
}

/** Drains GET /__emulator/requests?since=… every interval and counts by endpoint. */
export class RequestCollector {
  private lastSeq = 0;
  private timer?: NodeJS.Timeout;
  private busy?: Promise<void>;
  readonly counts = new Map<string, EndpointCount>();
  /** GetAsset arrival times per access token, for the busiest 1-s window. */
  readonly getAsset = new WindowCollector('assets.GetAsset');
  /** Requests the log dropped before we read them (a gap in sequence numbers). */
  lost = 0;
  errors = 0;

  constructor(
    private readonly emulatorUrl: string,
    private readonly intervalMs = 500,
  ) {}

  start(): void {
    this.timer ??= setInterval(() => {
      this.busy ??= this.drain().finally(() => (this.busy = undefined));
    }, this.intervalMs);
  }

  /** Drains, then forgets the counts so far: the setup's calls (a filled group) are not the run's. */
  async forgetSetup(): Promise<void> {
    await this.busy;
    await this.drain();
    this.counts.clear();
  }

  /** Stops polling after one last drain. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.busy;
    await this.drain();
  }

  private async drain(): Promise<void> {
    let records: RequestRecord[];
    try {
      ({ requests: records } = await getJson<{ requests: RequestRecord[] }>(
        `${this.emulatorUrl}/__emulator/requests?since=${this.lastSeq}`,
      ));
    } catch {
      this.errors += 1;
      return;
    }
    for (const r of records) {
      if (r.seq <= this.lastSeq) continue;
      if (r.seq > this.lastSeq + 1) this.lost += r.seq - this.lastSeq - 1;
      this.lastSeq = r.seq;
      this.getAsset.add(r);
      const key = r.endpoint ?? `${r.method} ${r.path.split('?')[0]}`;
      const c = this.counts.get(key) ?? { total: 0, byStatus: {} };
      c.total += 1;
      c.byStatus[String(r.status)] = (c.byStatus[String(r.status)] ?? 0) + 1;
      this.counts.set(key, c);
    }
  }

  /** Calls by endpoint key. */
  totals(): Record<string, number> {
    return Object.fromEntries([...this.counts].map(([k, c]): [string, number] => [k, c.total]).sort());
  }

  /** 429 answers by endpoint key. */
  rateLimited(): Record<string, number> {
    return Object.fromEntries(
      [...this.counts].filter(([, c]) => c.byStatus['429']).map(([k, c]) => [k, c.byStatus['429']]),
    );
  }
}

export type InspectionState = Omit<InspectionSnapshot, 'requests'>;

export function fetchState(emulatorUrl: string): Promise<InspectionState> {
  return getJson<InspectionState>(`${emulatorUrl}/__emulator/state`);
}

export interface PipelineVendorWork {
  index: number;
  /** Vendor tasks created for this pipeline, by stage (more than expected = duplicates). */
  tasks: Record<BenchStage, number>;
  /** The vendor's processing time per stage: created → terminal; the longest item of a stage. */
  processingMs: Partial<Record<BenchStage, number>>;
  /** Sum over the stages: the vendor's share of this pipeline's time. */
  totalMs: number;
}

type History = { status: string; at: string }[];

/** Created → the terminal state, from the emulator's planned timestamps; NaN when not terminal. */
function processing(history: History, terminal: readonly string[]): number {
  const first = history[0];
  const last = history[history.length - 1];
  if (!first || !last || !terminal.includes(last.status)) return NaN;
  return Date.parse(last.at) - Date.parse(first.at);
}

/** Ties every task of the emulator's state to its pipeline (0 ≤ index < n). */
export function attributeTasks(state: InspectionState, n: number): PipelineVendorWork[] {
  const work: PipelineVendorWork[] = Array.from({ length: n }, (_, index) => ({
    index,
    tasks: { review: 0, assets: 0, generation: 0, erase: 0 },
    processingMs: {},
    totalMs: 0,
  }));
  const add = (index: number | undefined, stage: BenchStage, ms: number) => {
    const w = index !== undefined ? work[index] : undefined;
    if (!w) return;
    w.tasks[stage] += 1;
    const prev = w.processingMs[stage];
    w.processingMs[stage] = prev === undefined ? ms : Math.max(prev, ms);
  };
  const fromUrl = (url: string | undefined) => {
    const m = url ? URL_INDEX.exec(url) : null;
    return m ? Number(m[1]) : undefined;
  };

  for (const r of state.reviewTasks) add(fromUrl(r.urls[0]), 'review', processing(r.history, REVIEW_TERMINAL_STATES));
  for (const a of state.assets) {
    if (a.origin !== 'CreateAsset') continue; // assets made by a passed review are part of the review
    add(fromUrl(a.sourceUrl), 'assets', processing(a.history, ASSET_TERMINAL_STATES));
  }
  const generationIndex = new Map<string, number>();
  for (const g of state.generationTasks) {
    const m = PROMPT_INDEX.exec(g.prompt);
    const index = m ? Number(m[1]) : undefined;
    if (index !== undefined) generationIndex.set(g.id, index);
    add(index, 'generation', processing(g.history, GENERATION_TERMINAL_STATES));
  }
  for (const e of state.eraseTasks) {
    add(generationIndex.get(e.generationTaskId), 'erase', processing(e.history, ERASE_TERMINAL_STATES));
  }
  for (const w of work) w.totalMs = Object.values(w.processingMs).reduce((a, b) => a + (b ?? 0), 0);
  return work;
}
