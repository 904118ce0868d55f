/**
 * What a pipeline shows, and nothing else: the status the `status` query answers (its vendor
 * tasks and call counts included), the current details in the Web UI and the search
 * attributes. The runtime holds one (`rt.board`); the callback book writes to
 * it (counted checks, orphan tasks, offers an operator's wait lists) and reads its vendor
 * tasks, and this never calls the book back. Created inside the workflow function.
 */
import { setCurrentDetails, upsertSearchAttributes } from '@temporalio/workflow';
import type { Priority } from '@temporalio/common';
import type {
  PipelineStatus,
  StageName,
  StageStatus,
  VendorTaskKind,
  VendorTaskRecord,
} from '../../../contract/messages';
import { STAGE, STATUS, TENANT, VENDOR_TASK_IDS } from '../../../contract/search-attributes';
import { renderDetails } from '../../../contract/details';
import { summaryOf } from './summaries';

export class StatusBoard {
  /** The search attributes last upserted, as "stage|state|ids|tenant". */
  private lastSearch = '';

  /**
   * Spread into every activity the pipeline schedules: its tenant's priority key, fairness key
   * and weight (docs/tenants.md), set once the policy is known; empty when tenants are off.
   */
  taskOptions: { priority?: Priority } = {};

  /** Paid creates waiting for their tenant's budget (create/spend.ts): the pipeline shows `waiting-budget`. */
  budgetWaits = 0;

  /** An asset Pending past the stuck threshold: the pipeline shows `stuck` until the stage ends. */
  stuck = false;

  constructor(
    readonly status: PipelineStatus,
    /** An operator wait's reason without the offers, which are appended as they change. */
    public waitingBase = '',
  ) {}

  get vendorTasks(): VendorTaskRecord[] {
    return this.status.vendorTasks;
  }

  // ---- the running stage, as the status and the Web UI show it

  private get current(): StageStatus {
    return this.status.stages[this.status.stage as StageName] ?? { state: 'running' };
  }

  get detail(): string | undefined {
    return this.current.detail;
  }
  set detail(text: string | undefined) {
    this.current.detail = text;
  }

  get progress(): { done: number; total: number } | undefined {
    return this.current.progress;
  }
  set progress(p: { done: number; total: number } | undefined) {
    this.current.progress = p;
  }

  /** Current details every time; search attributes only when stage, state or the task ids change. */
  refresh(): void {
    const s = this.status;
    if (
      s.state === 'running' ||
      s.state === 'waiting-operator' ||
      s.state === 'stuck' ||
      s.state === 'waiting-budget'
    ) {
      const budget = this.budgetWaits > 0 ? 'waiting-budget' : undefined;
      s.state = s.waiting ? 'waiting-operator' : (budget ?? (this.stuck ? 'stuck' : 'running'));
    }
    setCurrentDetails(renderDetails(s));
    const ids = s.vendorTasks.map((t) => t.id);
    const key = `${s.stage}|${s.state}|${ids.join(',')}|${s.tenant ?? ''}`;
    if (key === this.lastSearch) return;
    this.lastSearch = key;
    upsertSearchAttributes([
      { key: STAGE, value: s.stage },
      { key: STATUS, value: s.state },
      { key: VENDOR_TASK_IDS, value: ids },
      // Only where tenants apply: other runs upsert exactly what they always did.
      ...(s.tenant === undefined ? [] : [{ key: TENANT, value: s.tenant }]),
    ]);
  }

  /** The Web UI summary of a command of the running stage: "generation · poll cgt-…" (ids only, no URL). */
  summary(text: string): string {
    return summaryOf(this.status.stage, text);
  }

  /** Kept for the shared helpers (create, poll): a pipeline reports by refreshing itself. */
  report(): void {
    this.refresh();
  }

  // ---- vendor calls and tasks

  /** A call to `endpoint` (by: -1 takes back a count for a call never sent). */
  count(endpoint: string, by: 1 | -1 = 1): void {
    this.status.calls[endpoint] = (this.status.calls[endpoint] ?? 0) + by;
    if (this.status.calls[endpoint] === 0) delete this.status.calls[endpoint];
  }

  /** The task this step already has (a run before continue-as-new recorded it): no second create. */
  knownTask(step: string): VendorTaskRecord | undefined {
    return this.vendorTasks.find((t) => t.step === step && !t.orphan);
  }

  /** When this step's task id became known (workflow time, ms): its deadlines count from there. */
  recordedAt(step: string): number | undefined {
    const at = this.knownTask(step)?.recordedAt;
    return at === undefined ? undefined : Date.parse(at);
  }

  setState(kind: VendorTaskKind, id: string, state: string): void {
    const t = this.vendorTasks.find((x) => x.kind === kind && x.id === id);
    if (t && t.state !== state) t.state = state;
  }

  /** The step that already owns this task id, if any (an orphan owns none). */
  stepOwning(taskId: string): string | undefined {
    return this.vendorTasks.find((t) => t.id === taskId && !t.orphan)?.step;
  }

  /** The last state a query gave for this task id. */
  stateOf(taskId: string): string | undefined {
    return this.vendorTasks.find((t) => t.id === taskId)?.state;
  }

  /** A superseded attempt's task was proven: it may run (and cost) at the vendor. */
  orphan(kind: VendorTaskKind, id: string, step: string, attempt: number): void {
    this.vendorTasks.push({ kind, id, step, attempt, via: 'callback', orphan: true });
    this.refresh();
  }

  // ---- an operator wait's reason

  /** The offers of (step, attempt) now read `offers`: an operator waiting for that attempt sees them. */
  showOffers(step: string, attempt: number, offers: string): void {
    const waiting = this.status.waiting;
    if (waiting?.step !== step || waiting.attempt !== attempt) return;
    waiting.reason = this.waitingReason(offers);
    this.refresh();
  }

  waitingReason(offers: string): string {
    return offers ? `${this.waitingBase} Task ids offered by callbacks: ${offers}` : this.waitingBase;
  }
}
