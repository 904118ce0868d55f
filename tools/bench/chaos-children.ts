/**
 * The processes a chaos run starts (bench/chaos-run.ts), kept so that every one is killed
 * when the run ends, however it ends; each one's output goes, line by line, to its log file.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { createWriteStream } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';

/** Processes this run started: every one is killed when the run ends, however it ends. */
export class Children {
  private readonly procs = new Map<ChildProcess, EventEmitter>();
  readonly extraPids = new Set<number>();
  private readonly onExit = () => this.killAll();

  constructor(private readonly logDir: string) {
    process.on('exit', this.onExit);
  }

  /**
   * Starts `node script args`; stdout and stderr go, line by line, to <logDir>/<name>.log
   * (read for as long as the child lives: a pipe nobody drains would stall its writer).
   */
  node(name: string, script: string, args: string[], env: NodeJS.ProcessEnv): ChildProcess {
    const child = spawn(process.execPath, [script, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const file = createWriteStream(path.join(this.logDir, `${name}.log`), { flags: 'a' });
    const lines = new EventEmitter();
    for (const stream of [child.stdout, child.stderr]) {
      createInterface({ input: stream }).on('line', (line) => {
        file.write(`${line}\n`);
        lines.emit('line', line);
      });
    }
    child.once('exit', () => {
      this.procs.delete(child);
      setTimeout(() => file.end(), 100);
    });
    this.procs.set(child, lines);
    return child;
  }

  /** Resolves with the first line of `child` matching `pattern`. */
  waitForLine(child: ChildProcess, pattern: RegExp, timeoutMs: number, what: string): Promise<RegExpExecArray> {
    const lines = this.procs.get(child);
    if (!lines) return Promise.reject(new Error(`${what} is not running`));
    return new Promise((resolve, reject) => {
      const onLine = (line: string) => {
        const m = pattern.exec(line);
        if (m) done(null, m);
      };
      const onExit = (code: number | null) => done(new Error(`${what} exited (code ${code}) before it was ready`));
      const timer = setTimeout(() => done(new Error(`${what}: not ready within ${timeoutMs} ms`)), timeoutMs);
      const done = (err: Error | null, m?: RegExpExecArray) => {
        clearTimeout(timer);
        lines.off('line', onLine);
        child.off('exit', onExit);
        if (err) reject(err);
        else resolve(m!);
      };
      lines.on('line', onLine);
      child.once('exit', onExit);
    });
  }

  killAll(): void {
    for (const child of this.procs.keys()) {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    for (const pid of this.extraPids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }

  dispose(): void {
    this.killAll();
    process.off('exit', this.onExit);
  }
}
