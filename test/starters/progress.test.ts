import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { WorkflowFailedError } from '@temporalio/client';
import { failureChain, outcomeOf } from '../../src/starters/client/pipeline-client';
import {
  ProgressDisplay,
  renderFailure,
  renderStatus,
  resolveHint,
  statusChanges,
} from '../../src/starters/client/progress';
import type { PipelineStatus } from '../../src/contract/messages';
import { FailureType } from '../../src/failures';

function status(over: Partial<PipelineStatus> = {}): PipelineStatus {
  return {
    pipelineId: 'reelflow-demo-abc',
    state: 'running',
    stage: 'generation',
    stages: {
      review: { state: 'done', progress: { done: 2, total: 2 } },
      assets: { state: 'skipped' },
      generation: { state: 'running', detail: 'queued' },
      erase: { state: 'pending' },
    },
    vendorTasks: [
      { kind: 'review', id: 'rv-1', step: 'review-b0', attempt: 1, via: 'create', state: 'completed' },
      { kind: 'generation', id: 'gen-1', step: 'generation', attempt: 1, via: 'create' },
    ],
    calls: {},
    ...over,
  };
}

const waiting = {
  workflowId: 'reelflow-demo-abc.generation',
  stage: 'generation' as const,
  step: 'generation',
  attempt: 2,
  reason: 'outcome unknown',
  since: '2025-01-01T00:00:00Z',
};

test('renderStatus: a line per stage with progress, vendor task ids and details', () => {
  expect(renderStatus(status())).toEqual([
    'reelflow-demo-abc  running · generation',
    '  review      done      2/2     tasks rv-1 (completed)',
    '  assets      skipped',
    '  generation  running           tasks gen-1 · queued',
    '  erase       pending',
  ]);
});

test('renderStatus: a definition that failed validation names validation; the stages did not run', () => {
  const pending = { state: 'pending' as const };
  const failed = status({
    state: 'failed',
    stage: 'review',
    stages: { review: pending, assets: pending, generation: pending, erase: pending },
    vendorTasks: [],
    error: 'InvalidDefinition: generation.content: too small',
  });
  expect(renderStatus(failed)).toEqual([
    'reelflow-demo-abc  failed · validation',
    '  review      not run',
    '  assets      not run',
    '  generation  not run',
    '  erase       not run',
    '  error: InvalidDefinition: generation.content: too small',
  ]);
});

test('renderStatus: a stage waiting for an operator shows the wait, not running', () => {
  const lines = renderStatus(status({ state: 'waiting-operator', waiting }));
  expect(lines[3]).toBe('  generation  waiting           tasks gen-1 · queued');
});

test('renderStatus: the operator hint names the resolve command', () => {
  const lines = renderStatus(status({ state: 'waiting-operator', waiting }));
  expect(lines[lines.length - 1]).toBe(
    '  waiting for operator (generation, step generation: outcome unknown): run `reelflow resolve reelflow-demo-abc --task-id <vendor task id> | --resubmit | --abandon`',
  );
  expect(resolveHint('x', waiting)).toContain('reelflow resolve x ');
});

test('statusChanges: only what changed, one line each', () => {
  const a = status();
  expect(statusChanges(undefined, a)).toEqual([
    'pipeline running',
    'review: done 2/2',
    'vendor review rv-1 (completed) · step review-b0 (via create)',
    'assets: skipped',
    'generation: running queued',
    'vendor generation gen-1 · step generation (via create)',
  ]);
  expect(statusChanges(a, a)).toEqual([]);
  const b = status({
    state: 'waiting-operator',
    waiting,
    vendorTasks: [a.vendorTasks[0], { ...a.vendorTasks[1], state: 'running', orphan: true }],
  });
  expect(statusChanges(a, b)).toEqual([
    'pipeline waiting-operator',
    'vendor generation gen-1 (running, orphan: may still run at the vendor)',
    resolveHint(a.pipelineId, waiting),
  ]);
  expect(statusChanges(b, status())).toContain('operator decision taken for generation');
});

test('statusChanges: the end comes after the stage that ended it, and the task state is said once', () => {
  const erase = { kind: 'erase' as const, id: 'er-1', step: 'erase', attempt: 1, via: 'create' as const };
  const a = status({
    stage: 'erase',
    stages: {
      ...status().stages,
      generation: { state: 'done' },
      erase: { state: 'running', detail: 'vendor RUNNING' },
    },
    vendorTasks: [...status().vendorTasks, { ...erase, state: 'RUNNING' }],
  });
  const b = status({
    state: 'completed',
    stage: 'done',
    stages: { ...a.stages, erase: { state: 'done', detail: 'vendor SUCCESS' } },
    vendorTasks: [...status().vendorTasks, { ...erase, state: 'SUCCESS' }],
  });
  expect(statusChanges(a, b)).toEqual(['erase: done', 'vendor erase er-1 (SUCCESS)', 'pipeline completed']);
  // A detail the task line does not carry stays.
  const c = status({ stages: { ...status().stages, generation: { state: 'running', detail: 'vendor queued' } } });
  expect(statusChanges(status(), c)).toEqual(['generation: running vendor queued']);
});

test('ProgressDisplay: line mode prints changes; TTY mode redraws the block in place', () => {
  let lines = '';
  const plain = new ProgressDisplay({ write: (s: string) => (lines += s) });
  plain.update(status());
  plain.update(status());
  plain.note('no answer yet');
  plain.note('no answer yet');
  expect(lines.split('\n').filter(Boolean)).toHaveLength(7);

  let tty = '';
  const live = new ProgressDisplay({ write: (s: string) => (tty += s), isTTY: true, columns: 40 });
  live.update(status());
  live.update(status({ state: 'completed', stage: 'done' }));
  expect(tty.match(/\x1b\[5A\r\x1b\[0J/g)).toHaveLength(1);
  // Lines are cut to the terminal width so the cursor arithmetic holds.
  for (const line of tty.replace(/\x1b\[\d+A\r\x1b\[0J/g, '').split('\n')) expect(line.length).toBeLessThan(40);
});

test('failure chains: outermost first, with failure types', () => {
  const vendor = ApplicationFailure.create({
    type: FailureType.RejectedError,
    message: 'generation.create: invalid field content[1].image_url.url',
    nonRetryable: true,
  });
  const err = new WorkflowFailedError('Workflow execution failed', vendor, 0 as never);
  expect(failureChain(err)).toEqual([
    'Workflow execution failed',
    'RejectedError: generation.create: invalid field content[1].image_url.url',
  ]);
  expect(outcomeOf('p', err)).toMatchObject({ status: 'failed', workflowId: 'p' });
  expect(
    outcomeOf('p', new WorkflowFailedError('x', new CancelledFailure('Workflow cancelled'), 0 as never)).status,
  ).toBe('cancelled');
  expect(() => outcomeOf('p', new Error('connection lost'))).toThrow('connection lost');
  expect(renderFailure('pipeline p failed', ['a', 'b'])).toEqual(['pipeline p failed: a', '  caused by: b']);
});

test("renderStatus: a tenant's concurrency slot, queued for or held (docs/tenants.md)", () => {
  const since = '2026-11-27T00:00:00.000Z';
  const queued = renderStatus(status({ state: 'queued', tenant: 'acme', slot: { state: 'queued', limit: 5, since } }));
  expect(queued[0]).toBe('reelflow-demo-abc  queued · generation');
  expect(queued).toContain(`  queued for a slot of tenant acme (limit 5) since ${since}`);
  const held = renderStatus(status({ tenant: 'acme', slot: { state: 'held', slot: 3, limit: 5, since } }));
  expect(held).toContain('  holds slot 3 of 5 of tenant acme');
  const released = renderStatus(status({ tenant: 'acme', slot: { state: 'released', limit: 5, since } }));
  expect(released.join('\n')).not.toMatch(/slot/);
});
