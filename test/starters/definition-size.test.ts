/**
 * A definition too big for Temporal's payload limit is refused by validate and start (CLI
 * and library), saying its size and the limit, instead of the server's gRPC "Blob data
 * size exceeds limit". The limit's default is the real dev server's (checked at the byte).
 */
import { randomUUID } from 'node:crypto';
import { WorkflowNotFoundError } from '@temporalio/common';
import { DefinitionError, type PipelineDefinitionInput } from '../../src/definition/definition';
import { DEFAULT_MAX_PAYLOAD_BYTES, workflowInputBytes } from '../../src/starters/client/payload-size';
import { startPipeline } from '../../src/starters/client/pipeline-client';
import { cli } from '../support/cli';
import { devServerClient } from '../support/dev-client';

/** A generation-only definition whose prompt is `n` characters. */
const withPrompt = (n: number): PipelineDefinitionInput => ({
  name: 'size',
  generation: { model: 'm', content: [{ type: 'text', text: 'x'.repeat(n) }] },
  options: { archive: false },
});

/** The longest prompt whose definition still fits `limit` bytes as workflow input. */
function longestPromptWithin(limit: number): number {
  let lo = 1;
  let hi = limit;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (workflowInputBytes(withPrompt(mid)) <= limit) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

const SIZE_MESSAGE =
  /^is [\d,]+ bytes \([\d.]+ MiB\) as the workflow's input, over Temporal's payload limit of 2,097,152 bytes \(2\.00 MiB\)/;

describe('CLI', () => {
  const big = JSON.stringify(withPrompt(DEFAULT_MAX_PAYLOAD_BYTES));

  test('validate refuses a definition over 2 MiB, naming its size and the limit', async () => {
    const r = await cli(['validate', '-'], { stdin: big });
    expect(r.code).toBe(2);
    const size = workflowInputBytes(JSON.parse(big)).toLocaleString('en-US');
    expect(r.stderr).toMatch(
      new RegExp(
        `^<stdin>: \\(root\\): is ${size} bytes \\(2\\.00 MiB\\) as the workflow's input, over Temporal's payload limit of 2,097,152 bytes`,
      ),
    );
    expect(r.stderr).toContain('REELFLOW_MAX_PAYLOAD_BYTES');
  });

  test('--max-payload-bytes and REELFLOW_MAX_PAYLOAD_BYTES set the limit', async () => {
    expect((await cli(['validate', '-', '--max-payload-bytes', '3000000'], { stdin: big })).code).toBe(0);
    expect(
      (await cli(['validate', '-'], { stdin: big, env: { ...process.env, REELFLOW_MAX_PAYLOAD_BYTES: '3000000' } }))
        .code,
    ).toBe(0);
    const small = await cli(['validate', '-', '--json'], {
      stdin: JSON.stringify(withPrompt(500)),
      env: { ...process.env, REELFLOW_MAX_PAYLOAD_BYTES: '300' },
    });
    expect(small.code).toBe(2);
    expect(small.json().error.issues[0].message).toMatch(/over Temporal's payload limit of 300 bytes/);
  });

  test('a malformed REELFLOW_MAX_PAYLOAD_BYTES is a usage error naming it', async () => {
    const r = await cli(['validate', '-'], {
      stdin: JSON.stringify(withPrompt(5)),
      env: { ...process.env, REELFLOW_MAX_PAYLOAD_BYTES: '2MB' },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('REELFLOW_MAX_PAYLOAD_BYTES: a positive whole number of bytes (got "2MB")');
  });

  test('start refuses it before connecting to Temporal', async () => {
    const r = await cli(['start', '-', '--address', '127.0.0.1:1'], { stdin: big });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/over Temporal's payload limit of 2,097,152 bytes/);
    expect(r.stderr).not.toMatch(/connect/);
  });
});

describe('library startPipeline against the dev server', () => {
  const dev = devServerClient();

  const taskQueue = `size-${randomUUID()}`; // no worker: nothing runs

  test('at the byte: the largest definition within 2 MiB starts; one byte more is refused by reelflow, and by the server when reelflow lets it through', async () => {
    const fits = longestPromptWithin(DEFAULT_MAX_PAYLOAD_BYTES);
    expect(workflowInputBytes(withPrompt(fits + 1))).toBeGreaterThan(DEFAULT_MAX_PAYLOAD_BYTES);
    const handle = await startPipeline(dev.client, withPrompt(fits), {
      taskQueue,
      workflowId: `size-fits-${randomUUID()}`,
    });
    await handle.terminate('test: nothing to run');

    const workflowId = `size-over-${randomUUID()}`;
    const err = await startPipeline(dev.client, withPrompt(fits + 1), { taskQueue, workflowId }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(DefinitionError);
    expect((err as DefinitionError).issues).toEqual([{ path: '', message: expect.stringMatching(SIZE_MESSAGE) }]);
    await expect(dev.client.workflow.getHandle(workflowId).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);

    // The default is the server's own limit: raised past it, the server refuses.
    const server = await startPipeline(dev.client, withPrompt(fits + 1), {
      taskQueue,
      maxPayloadBytes: 3_000_000,
    }).catch((e: unknown) => e);
    expect(String((server as Error).cause ?? server)).toMatch(/Blob data size exceeds limit/);
  });
});
