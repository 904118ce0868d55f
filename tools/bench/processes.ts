/**
 * The benchmark's child processes (emulator, workers, baseline) and their resource use.
 *
 * - spawnNode: a node script in its own process, output appended to a log file and kept
 *   in a short ring so readiness lines can be awaited; stop() sends SIGTERM, then
 *   SIGKILL after a grace period.
 * - readProcStats: RSS, peak RSS (VmHWM) and CPU seconds (utime + stime) of a pid, read
 *   from /proc/<pid>/status and /proc/<pid>/stat (Linux).
 * - Sampler: reads those every interval for a set of named pids, so a process that has
 *   already exited still has its last figures.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, readFileSync, type WriteStream } from 'node:fs';

export interface ProcStats {
  rssKb: number;
  /** Peak resident set size since the process started. */
  hwmKb: number;
  /** User + system CPU time since the process started. */
  cpuSeconds: number;
}

let clockTicks: number | undefined;
function ticksPerSecond(): number {
  if (clockTicks === undefined) {
    try {
      clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      clockTicks = 100;
    }
  }
  return clockTicks;
}

/** utime + stime in seconds from the text of /proc/<pid>/stat. */
export function parseProcStatCpu(stat: string, ticks: number): number {
  // Field 2 (comm) may hold spaces and parentheses: count fields after the last ')'.
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // rest[0] is field 3 (state); utime and stime are fields 14 and 15.
  const utime = Number(rest[11]);
  const stime = Number(rest[12]);
  if (!Number.isFinite(utime) || !Number.isFinite(stime)) throw new Error('unexpected /proc/<pid>/stat format');
  return (utime + stime) / ticks;
}

/** A "Name:   1234 kB" field of /proc/<pid>/status, in kB. */
export function parseStatusKb(status: string, field: string): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
  return m ? Number(m[1]) : NaN;
}

export function readProcStats(pid: number): ProcStats | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return {
      rssKb: parseStatusKb(status, 'VmRSS'),
      hwmKb: parseStatusKb(status, 'VmHWM'),
      cpuSeconds: parseProcStatCpu(stat, ticksPerSecond()),
    };
  } catch {
    return undefined; // gone, or not Linux
  }
}

export interface MachineCpu {
  /** CPU seconds spent busy (all cores) since boot. */
  busySeconds: number;
  /** CPU seconds elapsed (all cores) since boot. */
  totalSeconds: number;
}

/** The machine's CPU time from the first line of /proc/stat. */
export function readMachineCpu(): MachineCpu | undefined {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
    const [, ...fields] = line.trim().split(/\s+/);
    const [user, nice, system, idle, iowait, irq, softirq, steal] = fields.map(Number);
    const busy = user + nice + system + irq + softirq + (steal ?? 0);
    const ticks = ticksPerSecond();
    return { busySeconds: busy / ticks, totalSeconds: (busy + idle + iowait) / ticks };
  } catch {
    return undefined;
  }
}

/** Pids whose command name (/proc/<pid>/comm) is `comm`, e.g. every PostgreSQL backend. */
export function pidsNamed(comm: string): number[] {
  try {
    return execFileSync('pgrep', ['-x', comm], { encoding: 'utf8' }).split('\n').filter(Boolean).map(Number);
  } catch {
    return []; // none (pgrep exits 1), or no pgrep
  }
}

/** A group's figures: CPU summed over its processes (exited ones keep their last), peak RSS the largest. */
function groupStats(members: Iterable<ProcStats>): ProcStats {
  let cpuSeconds = 0;
  let rssKb = 0;
  let hwmKb = 0;
  for (const m of members) {
    cpuSeconds += m.cpuSeconds;
    rssKb = Math.max(rssKb, m.rssKb);
    hwmKb = Math.max(hwmKb, m.hwmKb);
  }
  return { cpuSeconds, rssKb, hwmKb };
}

export class Sampler {
  private readonly pids = new Map<string, number>();
  private readonly groups = new Map<string, { find: () => number[]; members: Map<number, ProcStats> }>();
  private readonly last = new Map<string, ProcStats>();
  private timer?: NodeJS.Timeout;

  constructor(private readonly intervalMs = 500) {}

  watch(name: string, pid: number): void {
    this.pids.set(name, pid);
    this.sample();
  }

  /** Watches every process `find` returns at each sample (e.g. a database's backends) as one. */
  watchGroup(name: string, find: () => number[]): void {
    this.groups.set(name, { find, members: new Map() });
    this.sample();
  }

  start(): void {
    this.timer ??= setInterval(() => this.sample(), this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Reads every watched pid now; returns the latest figures by name. */
  sample(): Map<string, ProcStats> {
    for (const [name, pid] of this.pids) {
      const s = readProcStats(pid);
      if (s) this.last.set(name, s);
    }
    for (const [name, g] of this.groups) {
      for (const pid of g.find()) {
        const s = readProcStats(pid);
        if (s) g.members.set(pid, s);
      }
      this.last.set(name, groupStats(g.members.values()));
    }
    return new Map(this.last);
  }

  latest(name: string): ProcStats | undefined {
    return this.last.get(name);
  }
}

export interface NodeProcess {
  name: string;
  pid: number;
  child: ChildProcess;
  /** Resolves with the first output line matching `pattern`; rejects on exit or timeout. */
  waitForLine(pattern: RegExp, timeoutMs: number): Promise<string>;
  /** Writes a line to its stdin. */
  send(line: string): void;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves with the exit code (or signal name). */
  stop(graceMs?: number): Promise<number | string>;
  exited(): boolean;
  /** Resolves with the exit code (or signal name) when the process exits. */
  whenExited(): Promise<number | string>;
  /** The last lines it printed. */
  lastLines(n: number): string[];
}

export interface SpawnNodeOptions {
  name: string;
  script: string;
  args?: string[];
  env: NodeJS.ProcessEnv;
  /** Output (stdout and stderr) is appended here. */
  logFile: string;
  /** Keep stdin open for send(). */
  stdin?: boolean;
  /** Options for node itself, before the script (e.g. --cpu-prof). */
  nodeArgs?: string[];
}

const spawned = new Set<ChildProcess>();

/** Kills (SIGKILL) every process spawnNode started that is still running: the last resort on exit. */
export function killAllSpawned(): void {
  for (const child of spawned) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  spawned.clear();
}

/** What a process prints, as lines: the last 200 kept, and waits for a line matching a pattern. */
class OutputLines {
  readonly recent: string[] = [];
  private readonly waiters = new Set<{ pattern: RegExp; resolve: (line: string) => void }>();

  /** A 'data' listener for one stream: appends the chunk to `log`, then reads whole lines. */
  reader(log: WriteStream): (chunk: Buffer) => void {
    let text = '';
    return (chunk) => {
      log.write(chunk);
      text += chunk.toString('utf8');
      const lines = text.split('\n');
      text = lines.pop() ?? '';
      for (const line of lines) this.add(line);
    };
  }

  private add(line: string): void {
    this.recent.push(line);
    if (this.recent.length > 200) this.recent.shift();
    for (const w of [...this.waiters]) {
      if (w.pattern.test(line)) {
        this.waiters.delete(w);
        w.resolve(line);
      }
    }
  }

  /** A line seen already, or the next one matching; rejects with `failure(why)` on timeout or exit. */
  waitFor(
    pattern: RegExp,
    timeoutMs: number,
    whenExited: () => Promise<number | string>,
    failure: (why: string) => Error,
  ): Promise<string> {
    const seen = this.recent.find((l) => pattern.test(l));
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const waiter = {
        pattern,
        resolve: (line: string) => {
          clearTimeout(timer);
          resolve(line);
        },
      };
      const fail = (why: string) => {
        this.waiters.delete(waiter);
        clearTimeout(timer);
        reject(failure(why));
      };
      const timer = setTimeout(() => fail(`no line matching ${pattern} within ${timeoutMs} ms`), timeoutMs);
      this.waiters.add(waiter);
      void whenExited().then((exit) => {
        if (this.waiters.has(waiter)) fail(`exited (${String(exit)}) before printing a line matching ${pattern}`);
      });
    });
  }
}

export function spawnNode(opts: SpawnNodeOptions): NodeProcess {
  const child = spawn(process.execPath, [...(opts.nodeArgs ?? []), opts.script, ...(opts.args ?? [])], {
    env: opts.env,
    stdio: [opts.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'],
  });
  if (child.pid === undefined) throw new Error(`${opts.name}: could not start ${opts.script}`);
  spawned.add(child);
  const log: WriteStream = createWriteStream(opts.logFile, { flags: 'a' });
  const output = new OutputLines();
  let exit: number | string | undefined;
  const exitWaiters: (() => void)[] = [];

  child.stdin?.on('error', () => undefined); // EPIPE after the child exited
  child.stdout!.on('data', output.reader(log));
  child.stderr!.on('data', output.reader(log));
  child.on('exit', (code, signal) => {
    exit = code ?? signal ?? 'unknown';
    spawned.delete(child);
    log.end();
    for (const f of exitWaiters.splice(0)) f();
  });

  const onExit = () => new Promise<void>((resolve) => (exit !== undefined ? resolve() : exitWaiters.push(resolve)));
  const whenExited = () => onExit().then(() => exit!);

  return {
    name: opts.name,
    pid: child.pid,
    child,
    exited: () => exit !== undefined,
    whenExited,
    lastLines: (n) => output.recent.slice(-n),
    waitForLine: (pattern, timeoutMs) =>
      output.waitFor(
        pattern,
        timeoutMs,
        whenExited,
        (why) =>
          new Error(`${opts.name}: ${why} (see ${opts.logFile}); last output:\n${output.recent.slice(-15).join('\n')}`),
      ),
    send(line) {
      child.stdin?.write(`${line}\n`);
    },
    async stop(graceMs = 15_000) {
      if (exit === undefined) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
        await onExit();
        clearTimeout(timer);
      }
      return exit!;
    },
  };
}
