import { packageOf, summarizeProfile } from '../../tools/bench/cpu-profile';
import { spawnSync } from 'node:child_process';
import { parseProcStatCpu, parseStatusKb, pidsNamed, readProcStats, Sampler } from '../../tools/bench/processes';

describe('/proc parsing', () => {
  test('utime + stime, with a process name holding spaces and parentheses', () => {
    // fields: pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime ...
    const stat = '4242 (node (worker) x) S 1 4242 4242 0 -1 4194304 100 0 0 0 250 50 0 0 20 0 11 0';
    expect(parseProcStatCpu(stat, 100)).toBe(3);
  });

  test('kB fields of /proc/<pid>/status', () => {
    const status = 'Name:\tnode\nVmHWM:\t  123456 kB\nVmRSS:\t   65432 kB\n';
    expect(parseStatusKb(status, 'VmHWM')).toBe(123456);
    expect(parseStatusKb(status, 'VmRSS')).toBe(65432);
    expect(parseStatusKb(status, 'VmSwap')).toBeNaN();
  });
});

describe('process groups (e.g. PostgreSQL backends)', () => {
  test('pidsNamed finds this process by its command name', () => {
    const comm = spawnSync('cat', [`/proc/${process.pid}/comm`], { encoding: 'utf8' }).stdout.trim();
    expect(pidsNamed(comm)).toContain(process.pid);
    expect(pidsNamed('no-such-command-xyz')).toEqual([]);
  });

  test('a group sums CPU and keeps the last figures of members that are gone', () => {
    const members = [process.pid];
    const sampler = new Sampler(1_000);
    sampler.watchGroup('group', () => members);
    const own = readProcStats(process.pid)!;
    members.splice(0, 1, 999_999_999); // this pid leaves the group, a missing one joins
    const g = sampler.sample().get('group')!;
    expect(g.cpuSeconds).toBeGreaterThanOrEqual(own.cpuSeconds - 0.5);
    expect(g.cpuSeconds).toBeGreaterThan(0);
    expect(g.hwmKb).toBeGreaterThan(0);
  });
});

describe('CPU profile summary', () => {
  test('packages from frame URLs', () => {
    expect(packageOf('file:///w/node_modules/@temporalio/worker/lib/worker.js', 'run')).toBe('@temporalio/worker');
    expect(packageOf('file:///w/node_modules/a/node_modules/zod/index.cjs', 'parse')).toBe('zod');
    expect(packageOf('file:///w/dist/workflow-bundle.js', 'x')).toBe('workflow bundle (sandboxed workflow code)');
    expect(packageOf('node:internal/timers', 'listOnTimeout')).toBe('node:internal');
    expect(packageOf('', '(garbage collector)')).toBe('(garbage collector)');
    expect(packageOf('file:///w/dist/vendor-api/http.js', 'exchange')).toBe('reelflow');
  });

  test('self time per function and package; idle left out', () => {
    const frame = (id: number, functionName: string, url = '') => ({
      id,
      callFrame: { functionName, url, lineNumber: 0 },
    });
    const summary = summarizeProfile(
      {
        nodes: [
          frame(1, '(root)'),
          frame(2, '(idle)'),
          frame(3, 'parse', 'file:///w/node_modules/zod/x.js'),
          frame(4, 'run', 'file:///w/dist/a.js'),
        ],
        samples: [2, 3, 3, 4],
        timeDeltas: [5_000, 2_000, 2_000, 1_000], // µs
      },
      'p.cpuprofile',
    );
    expect(summary.totalMs).toBe(5);
    expect(summary.byPackage.map((p) => [p.name, p.ms])).toEqual([
      ['zod', 4],
      ['reelflow', 1],
    ]);
    expect(summary.topFunctions[0]).toMatchObject({ name: 'parse', ms: 4, share: 0.8 });
  });
});
