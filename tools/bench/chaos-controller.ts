/**
 * The controller of a chaos run (bench/chaos-run.ts): from the seeded schedule, it SIGKILLs
 * a worker and starts a replacement, restarts the Temporal server once (same database),
 * terminates a ledger and forges ledger messages (chaos-ledger-moves.ts), reads the
 * emulator's request log, prints progress, and ends the run at its timeout.
 */
import type { RequestRecord } from '../../src/emulator/request-log';
import type { ChaosSchedule } from './chaos-plan';
import type { Children } from './chaos-children';
import type { LedgerChaos } from './chaos-ledger-moves';
import type { Operator } from './chaos-operator';
import { sleep, type PipelineWatch } from './chaos-pipelines';
import type { EmulatorApi, WorkerPool } from './chaos-stack';
import type { BenchServer } from './temporal-server';

export interface KillRecord {
  atMs: number;
  worker: string;
  pid: number;
  replacement: string;
  /** Pipelines not yet terminal when it happened. */
  inFlight: number;
}

export interface RestartRecord {
  atMs: number;
  /** From stop to serving again. */
  downMs: number;
  inFlight: number;
}

/** Every request the emulator logged, read in batches (the emulator keeps only the last 5,000). */
export class RequestLog {
  readonly requests: RequestRecord[] = [];
  private lastSeq = 0;

  constructor(private readonly emu: EmulatorApi) {}

  async collect(): Promise<void> {
    try {
      const { requests: batch } = await this.emu<{ requests: RequestRecord[] }>(`requests?since=${this.lastSeq}`);
      for (const r of batch) this.requests.push(r);
      if (batch.length) this.lastSeq = batch[batch.length - 1].seq;
    } catch {
      // next time
    }
  }
}

export interface ControllerParts {
  schedule: ChaosSchedule;
  /** Worker kills asked for (the progress line shows them against it). */
  killsAsked: number;
  timeoutMs: number;
  /** The run's start: the schedule counts from here. */
  t0: number;
  workers: WorkerPool;
  /** The run's own server (absent with a shared one: no restart then). */
  server: BenchServer | undefined;
  children: Children;
  pipelines: PipelineWatch;
  operator: Operator;
  requestLog: RequestLog;
  /** The moves against the tenants' ledgers (absent: none). */
  ledger?: LedgerChaos;
  log: (line: string) => void;
}

export class Controller {
  readonly kills: KillRecord[] = [];
  readonly restarts: RestartRecord[] = [];

  constructor(private readonly p: ControllerParts) {}

  /** Every 250 ms until the run ends. */
  async loop(): Promise<void> {
    const { schedule, pipelines, t0 } = this.p;
    const pendingKills = [...schedule.kills];
    let restartAt = schedule.restartAtMs;
    let lastProgress = 0;
    let lastCollect = 0;
    while (!pipelines.allDone() && !pipelines.abort.signal.aborted) {
      await sleep(250);
      const now = Date.now() - t0;
      if (now - lastCollect > 2_000) {
        lastCollect = now;
        await this.p.requestLog.collect();
      }
      const kill = pendingKills[0];
      if (kill && now >= kill.atMs && this.p.workers.alive.length > 0) {
        pendingKills.shift();
        await this.killWorker(now, kill.workerPick);
      }
      if (restartAt !== undefined && now >= restartAt && this.p.server) {
        restartAt = undefined;
        await this.restartServer(now, this.p.server);
      }
      await this.p.ledger?.tick(now);
      if (now - lastProgress >= 10_000) {
        lastProgress = now;
        this.progress(now);
      }
      if (now > this.p.timeoutMs) {
        this.p.log(
          `chaos: timeout after ${Math.round(this.p.timeoutMs / 1000)} s with ${pipelines.inFlight()} pipelines unfinished`,
        );
        pipelines.abort.abort();
      }
    }
  }

  private async killWorker(now: number, pick: number): Promise<void> {
    const { pipelines } = this.p;
    const { victim, replacement } = await this.p.workers.killOne(pick);
    this.kills.push({
      atMs: now,
      worker: victim.name,
      pid: victim.proc.pid ?? -1,
      replacement: replacement.name,
      inFlight: pipelines.inFlight(),
    });
    this.p.log(
      `chaos: t=${(now / 1000).toFixed(1)}s SIGKILL ${victim.name} (pid ${victim.proc.pid}), ${pipelines.inFlight()} pipelines in flight; started ${replacement.name}`,
    );
  }

  private async restartServer(now: number, server: BenchServer): Promise<void> {
    const { log } = this.p;
    const before = this.p.pipelines.inFlight();
    log(
      `chaos: t=${(now / 1000).toFixed(1)}s restarting the Temporal server (same database), ${before} pipelines in flight`,
    );
    const s0 = Date.now();
    await server.restart();
    this.p.children.extraPids.add(server.pid);
    this.restarts.push({ atMs: now, downMs: Date.now() - s0, inFlight: before });
    log(`chaos: Temporal server back after ${((Date.now() - s0) / 1000).toFixed(1)} s`);
  }

  private progress(now: number): void {
    const done = [...this.p.pipelines.outcomes.values()];
    this.p.log(
      `chaos: t=${Math.round(now / 1000)}s ${done.length}/${this.p.pipelines.planned} finished ` +
        `(${done.filter((o) => o.state === 'completed').length} completed, ${done.filter((o) => o.state !== 'completed').length} other); ` +
        `kills ${this.kills.length}/${this.p.killsAsked}, restarts ${this.restarts.length}, operator decisions ${this.p.operator.decisions.length}`,
    );
  }
}
