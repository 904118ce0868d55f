/**
 * `reelflow start <file>` reads, parses and measures the definition once: the
 * LoadedDefinition of loadDefinitionFile goes to startPipeline as it is. The real parse and
 * measure are wrapped to count their calls (nothing is replaced); the start is a real one
 * on the dev server, on a task queue no worker polls (nothing runs; the test terminates it).
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { defaultPayloadConverter, WorkflowNotFoundError } from '@temporalio/common';
import { parseDefinition, type PipelineDefinitionInput } from '../../src/definition/definition';
import { DefinitionFileError, loadDefinitionFile } from '../../src/starters/client/definition-file';
import { definitionOnTheWire, measuredOnTheWire } from '../../src/starters/client/payload-size';
import { startPipeline } from '../../src/starters/client/pipeline-client';
import { cli } from '../support/cli';
import { devServerClient } from '../support/dev-client';

jest.mock('../../src/definition/definition', () => {
  const actual = jest.requireActual<typeof import('../../src/definition/definition')>(
    '../../src/definition/definition',
  );
  return { ...actual, parseDefinition: jest.fn(actual.parseDefinition) };
});
jest.mock('../../src/starters/client/payload-size', () => {
  const actual = jest.requireActual<typeof import('../../src/starters/client/payload-size')>(
    '../../src/starters/client/payload-size',
  );
  return {
    ...actual,
    measuredOnTheWire: jest.fn(actual.measuredOnTheWire),
    definitionOnTheWire: jest.fn(actual.definitionOnTheWire),
  };
});

const dir = mkdtempSync(path.join(os.tmpdir(), 'reelflow-start-once-'));
function defFile(name: string, def: PipelineDefinitionInput): string {
  const file = path.join(dir, name);
  writeFileSync(file, JSON.stringify(def, null, 2));
  return file;
}
const escaped = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const withPrompt = (text: string): PipelineDefinitionInput => ({
  name: 'start-once',
  generation: { model: 'video-model-1', content: [{ type: 'text', text }] },
  options: { archive: false },
});

const dev = devServerClient();
beforeEach(() => jest.clearAllMocks());

const taskQueue = `start-once-${randomUUID()}`; // no worker: nothing runs

test('reelflow start parses and measures the file once, and starts the definition as written', async () => {
  const def = withPrompt('a kite over the sea');
  const workflowId = `start-once-${randomUUID()}`;
  const r = await cli(['start', defFile('once.json', def), '--task-queue', taskQueue, '--workflow-id', workflowId]);
  expect(r.stderr).not.toMatch(/error/);
  expect(r.code).toBe(0);
  expect(r.stdout.trim()).toBe(workflowId);
  try {
    expect(parseDefinition).toHaveBeenCalledTimes(1);
    expect(measuredOnTheWire).toHaveBeenCalledTimes(1);
    expect(definitionOnTheWire).not.toHaveBeenCalled();
    // What the workflow received: the file's definition, as written.
    const history = await dev.client.workflow.getHandle(workflowId).fetchHistory();
    const payload = history.events![0].workflowExecutionStartedEventAttributes!.input!.payloads![0];
    expect(defaultPayloadConverter.fromPayload(payload)).toEqual({ definition: def });
  } finally {
    await dev.client.workflow.getHandle(workflowId).terminate('test: nothing to run');
  }
});

test('reelflow start: a file over the payload limit is refused naming the file, before connecting', async () => {
  const file = defFile('big.json', withPrompt('x'.repeat(500)));
  const r = await cli(['start', file, '--max-payload-bytes', '300', '--address', '127.0.0.1:1']);
  expect(r.code).toBe(2);
  expect(r.stderr).toMatch(
    new RegExp(
      `^${escaped(file)}: \\(root\\): is [\\d,]+ bytes as the workflow's input, over Temporal's payload limit of 300 bytes`,
    ),
  );
  expect(r.stderr).not.toMatch(/connect/);
  expect(parseDefinition).not.toHaveBeenCalled();
});

test('startPipeline takes a loaded definition unparsed, and holds its size against its own limit', async () => {
  const file = defFile('library.json', withPrompt('y'.repeat(500)));
  const loaded = await loadDefinitionFile(file);
  jest.clearAllMocks();
  const workflowId = `start-once-${randomUUID()}`;
  const err = await startPipeline(dev.client, loaded, { taskQueue, workflowId, maxPayloadBytes: 300 }).catch(
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(DefinitionFileError);
  // Worded as loadDefinitionFile words it with that limit.
  expect((err as DefinitionFileError).lines()).toEqual([
    expect.stringMatching(
      new RegExp(
        `^${escaped(file)}: \\(root\\): is [\\d,]+ bytes as the workflow's input, over Temporal's payload limit of 300 bytes`,
      ),
    ),
  ]);
  await expect(dev.client.workflow.getHandle(workflowId).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);

  const handle = await startPipeline(dev.client, loaded, { taskQueue, workflowId });
  await handle.terminate('test: nothing to run');
  expect(parseDefinition).not.toHaveBeenCalled();
  expect(measuredOnTheWire).not.toHaveBeenCalled();
  expect(definitionOnTheWire).not.toHaveBeenCalled();
});
