/**
 * CPU and RSS over one load run of the stream-mechanisms bench (docs/benchmarks.md, "Gateway
 * event streams"): this process (the subscriber side) from process.cpuUsage and memoryUsage,
 * other processes (the worker, the dev server) from /proc; the peak RSS sampled every 250 ms;
 * the machine's busy share and load average, for the reader to judge the figures by.
 */
import os from 'node:os';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { readMachineCpu, readProcStats } from '../processes';

export interface ProcessUse {
  /** Share of one core over the run. */
  cpuPercent: number;
  /** RSS at the start (this process: after a GC) and its peak during the run, MB. */
  rssBeforeMb: number;
  peakRssMb: number;
}

/** An explicit GC, so this process's RSS is read from a settled heap (V8's flag, set at run time). */
export function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

interface Reading {
  cpuSeconds: number;
  rssMb: number;
}

const SELF = 'bench';

function read(pid: number | undefined): Reading | undefined {
  if (pid === undefined) {
    const cpu = process.cpuUsage();
    return { cpuSeconds: (cpu.user + cpu.system) / 1e6, rssMb: process.memoryUsage().rss / 2 ** 20 };
  }
  const s = readProcStats(pid);
  return s ? { cpuSeconds: s.cpuSeconds, rssMb: s.rssKb / 1024 } : undefined;
}

export class Meter {
  private readonly t0 = Date.now();
  private readonly machine0 = readMachineCpu();
  private readonly load0 = os.loadavg()[0];
  private readonly pids: Map<string, number | undefined>;
  private readonly start = new Map<string, Reading | undefined>();
  private readonly peak = new Map<string, number>();
  private readonly timer: NodeJS.Timeout;

  /** Measures this process as `bench`, and each named pid. */
  constructor(pids: Record<string, number>) {
    this.pids = new Map<string, number | undefined>([[SELF, undefined], ...Object.entries(pids)]);
    for (const [name, pid] of this.pids) this.start.set(name, read(pid));
    this.timer = setInterval(() => this.sample(), 250);
  }

  private sample(): void {
    for (const [name, pid] of this.pids) {
      this.peak.set(name, Math.max(this.peak.get(name) ?? 0, read(pid)?.rssMb ?? 0));
    }
  }

  stop(): {
    seconds: number;
    processes: Record<string, ProcessUse>;
    machine: { busyPercent: number; loadAverage1m: { start: number; end: number } };
  } {
    this.sample();
    clearInterval(this.timer);
    const seconds = (Date.now() - this.t0) / 1000;
    const processes: Record<string, ProcessUse> = {};
    for (const [name, pid] of this.pids) {
      const before = this.start.get(name);
      const after = read(pid);
      processes[name] = {
        cpuPercent: (100 * ((after?.cpuSeconds ?? NaN) - (before?.cpuSeconds ?? NaN))) / seconds,
        rssBeforeMb: before?.rssMb ?? NaN,
        peakRssMb: this.peak.get(name) ?? NaN,
      };
    }
    const m1 = readMachineCpu();
    const m0 = this.machine0;
    const busy = m0 && m1 ? (m1.busySeconds - m0.busySeconds) / (m1.totalSeconds - m0.totalSeconds) : NaN;
    return {
      seconds,
      processes,
      machine: { busyPercent: 100 * busy, loadAverage1m: { start: this.load0, end: os.loadavg()[0] } },
    };
  }
}
