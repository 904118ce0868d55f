/**
 * Other languages (docs/other-languages.md): a Go program on Temporal's own Go SDK, with
 * no reelflow code, starts `videoPipeline` with a JSON definition, asks the `status`
 * query and reads the result; the real worker and the emulator run the pipeline.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildGoClient } from './go-client';
import { startHarness, type Harness } from '../support/harness';

interface GoOutput {
  workflowId: string;
  runId: string;
  status?: { state: string; stage: string; vendorTasks: { kind: string; id: string }[] };
  result?: {
    pipelineId: string;
    generation?: { taskId: string; videoUrl: string };
    vendorTasks: { kind: string; id: string }[];
  };
  error?: string;
}

/** Runs the Go client; resolves with its exit code and parsed output (it prints JSON even on failure). */
function runGoClient(bin: string, args: string[]): Promise<{ code: number; out: GoOutput; stderr: string }> {
  return new Promise((resolve, reject) => {
    const env = {
      PATH: process.env.PATH,
      TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS,
      TEMPORAL_NAMESPACE: process.env.TEMPORAL_NAMESPACE ?? 'default',
    };
    execFile(bin, args, { env, timeout: 120_000 }, (error, stdout, stderr) => {
      const code = error ? ((error as { code?: number }).code ?? -1) : 0;
      try {
        resolve({ code: typeof code === 'number' ? code : -1, out: JSON.parse(stdout) as GoOutput, stderr });
      } catch {
        reject(new Error(`go client exit ${String(code)}, stdout: ${stdout}, stderr: ${stderr}`));
      }
    });
  });
}

describe('a Go backend starts pipelines with the Temporal Go SDK', () => {
  let bin: string;
  let h: Harness;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'reelflow-go-'));

  beforeAll(async () => {
    // Cold: module download and an SDK compile on a shared 2-core machine; warm: cached.
    bin = await buildGoClient(process.env, (l) => process.stderr.write(`${l}\n`));
    h = await startHarness();
  }, 900_000);

  afterAll(async () => {
    await h?.close();
  });

  function definitionFile(name: string, definition: unknown): string {
    const file = path.join(dir, `${name}.json`);
    writeFileSync(file, JSON.stringify(definition));
    return file;
  }

  it('completes a generation pipeline: status completed, the result in a map, the task at the vendor', async () => {
    const id = `go-${randomUUID().slice(0, 8)}`;
    const file = definitionFile('generation', {
      name: 'from-go',
      generation: { model: 'video-model-1', content: [{ type: 'text', text: 'a teapot, from Go' }] },
      options: { allowPrivateHosts: true, archive: false },
    });
    const { code, out, stderr } = await runGoClient(bin, ['-task-queue', h.taskQueue, '-definition', file, '-id', id]);
    expect({ code, error: out.error, stderr }).toMatchObject({ code: 0, error: undefined });
    expect(out.workflowId).toBe(id);
    expect(out.status).toMatchObject({ state: 'completed', stage: 'done' });
    expect(out.result?.pipelineId).toBe(id);
    const taskId = out.result?.generation?.taskId;
    expect(out.result?.vendorTasks).toContainEqual(expect.objectContaining({ kind: 'generation', id: taskId }));
    const atVendor = h.emulator.inspect().generationTasks.find((t) => t.id === taskId);
    expect(atVendor).toMatchObject({ status: 'succeeded', prompt: 'a teapot, from Go' });
    // The same workflow a reelflow client would have started: its type, on the worker's queue.
    const described = await h.client.workflow.getHandle(id).describe();
    expect({ type: described.type, taskQueue: described.taskQueue }).toEqual({
      type: 'videoPipeline',
      taskQueue: h.taskQueue,
    });
  });

  it('reports a definition the worker refuses: exit 1, the error names the field', async () => {
    const file = definitionFile('bad', {
      name: 'bad-from-go',
      generation: { model: 'video-model-1', content: [{ type: 'text', text: 'x' }], duration: 'five' },
    });
    const { code, out } = await runGoClient(bin, ['-task-queue', h.taskQueue, '-definition', file]);
    expect(code).toBe(1);
    expect(out.status?.state).toBe('failed');
    expect(out.error).toMatch(/generation\.duration/);
    expect(h.emulator.inspect().generationTasks.filter((t) => t.prompt === 'x')).toHaveLength(0);
  });

  it('without Go and without a cached client, fails naming the missing toolchain', async () => {
    const env = { PATH: '', REELFLOW_CACHE_DIR: mkdtempSync(path.join(os.tmpdir(), 'reelflow-nogo-')) };
    await expect(buildGoClient(env)).rejects.toThrow(/needs a Go toolchain \(1\.23 or later\) on PATH/);
  });
});
