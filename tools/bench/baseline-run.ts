/**
 * The same N pipelines through the naive baseline (bench/baseline.ts) in a process of
 * its own, against a fresh emulator process with the same timings.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { BaselineRunResult } from './baseline-main';
import {
  cpuOf,
  definitionsFor,
  finishPhase,
  machineWindow,
  processUse,
  profilingArgs,
  startEmulatorProcess,
  type PhaseContext,
  type PhaseResult,
} from './phase';
import { spawnNode, type NodeProcess, type Sampler } from './processes';

export async function runBaseline(ctx: PhaseContext, sampler: Sampler): Promise<PhaseResult> {
  const mode = ctx.callbacks ? 'on' : 'off';
  const emulator = await startEmulatorProcess(ctx, `baseline-${mode}`);
  let proc: NodeProcess | undefined;
  try {
    const definitions = await definitionsFor(ctx, emulator.url);
    await emulator.collector.forgetSetup();
    const defsFile = path.join(ctx.runDir, `definitions-baseline-${mode}.json`);
    const outFile = path.join(ctx.runDir, `baseline-${mode}.json`);
    writeFileSync(defsFile, JSON.stringify(definitions));
    proc = spawnNode({
      name: 'baseline',
      script: path.join(ctx.root, 'tools', 'bench', 'baseline-main.ts'),
      args: [
        '--emulator',
        emulator.url,
        '--definitions',
        defsFile,
        '--out',
        outFile,
        '--archive-dir',
        path.join(ctx.runDir, `archive-baseline-${mode}`),
        '--timeout-ms',
        String(ctx.timeoutMs),
        ...(ctx.callbacks ? ['--callbacks'] : []),
      ],
      env: { PATH: process.env.PATH, HOME: ctx.runDir },
      logFile: path.join(ctx.runDir, `baseline-${mode}.log`),
      stdin: true,
      // A tool, run from its TypeScript like every tool (scripts/run.mjs).
      nodeArgs: ['--import', 'tsx', ...profilingArgs(ctx, `baseline-${mode}`)],
    });
    await proc.waitForLine(/^READY/, 60_000);
    sampler.watch('baseline', proc.pid);
    sampler.watch('emulator', emulator.proc.pid);
    const before = sampler.sample();
    const window = machineWindow();
    ctx.log(`baseline, callbacks ${mode}: starting ${ctx.n} pipelines (one plain async loop each, no Temporal)`);
    proc.send('GO');
    // The baseline bounds each pipeline by the timeout itself; allow it a minute more to write its result.
    await proc.waitForLine(/^DONE/, ctx.timeoutMs + 60_000);
    const after = sampler.sample();
    const processes = [processUse('baseline', before.get('baseline'), after.get('baseline'))];
    const context = [processUse('emulator', before.get('emulator'), after.get('emulator'))];
    const machineLoad = window.end(cpuOf([...processes, ...context]));
    const result = JSON.parse(readFileSync(outFile, 'utf8')) as BaselineRunResult;
    const outcomes = result.pipelines.map((p) => ({
      ok: p.ok,
      ...(p.error ? { error: p.error } : {}),
      pipelineMs: p.endedAt - p.startedAt,
      stageMs: p.timings,
    }));
    return await finishPhase(ctx, emulator, {
      system: 'baseline',
      wallMs: Math.max(...result.pipelines.map((p) => p.endedAt)) - result.startedAt,
      outcomes,
      processes,
      context,
      ...(machineLoad ? { machineLoad } : {}),
    });
  } finally {
    proc?.send('EXIT');
    await proc?.stop(5_000);
    await emulator.proc.stop();
  }
}
