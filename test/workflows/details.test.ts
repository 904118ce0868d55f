/**
 * The Web UI's current details (pure rendering): a table a person can read at a glance,
 * in the UI's markdown (which turns "2/2" into a fraction glyph and cuts long cells).
 */
import { renderDetails } from '../../src/contract/details';
import type { PipelineStatus } from '../../src/contract/messages';

function status(over: Partial<PipelineStatus> = {}): PipelineStatus {
  return {
    pipelineId: 'p-1',
    state: 'running',
    stage: 'generation',
    stages: {
      review: { state: 'skipped' },
      assets: {
        state: 'done',
        startedAt: '2026-11-26T06:00:00.000Z',
        endedAt: '2026-11-26T06:01:05.000Z',
        progress: { done: 2, total: 2 },
      },
      generation: { state: 'running', startedAt: '2026-11-26T06:01:05.000Z', detail: 'vendor running' },
      erase: { state: 'pending' },
    },
    vendorTasks: [
      { kind: 'asset', id: 'asset-1', step: 'assets.0', attempt: 1, via: 'create' },
      { kind: 'generation', id: 'cgt-1', step: 'generation', attempt: 1, via: 'create', state: 'running' },
    ],
    calls: {},
    ...over,
  };
}

const rowOf = (md: string, stage: string) => md.split('\n').find((l) => l.startsWith(`| ${stage} |`));

test('one row per stage that runs: state, task ids, progress as "n of m", duration when done', () => {
  const md = renderDetails(status());
  expect(md).toContain('**running** · stage generation');
  expect(rowOf(md, 'review')).toBeUndefined();
  expect(rowOf(md, 'assets')).toBe('| assets | done | asset-1 | 2 of 2 | 1 min 5 s |');
  expect(md).not.toMatch(/\d\/\d/);
});

test('a running stage shows when it started, not an elapsed time that is stale when read', () => {
  expect(rowOf(renderDetails(status()), 'generation')).toBe(
    '| generation | running: vendor running | cgt-1 |  | since 06:01:05 UTC |',
  );
});

test('the stage an operator is asked about says waiting-operator; a long reason is cut, pointing at reelflow status', () => {
  const reason = `generation create outcome unknown (${'x'.repeat(300)}); look it up in the vendor console`;
  const md = renderDetails(
    status({
      state: 'waiting-operator',
      waiting: { workflowId: 'p-1', stage: 'generation', step: 'generation', attempt: 1, reason, since: 'now' },
    }),
  );
  expect(rowOf(md, 'generation')).toMatch(/^\| generation \| waiting-operator: /);
  expect(md.split('\n')[1]).toBe('**Waiting for an operator** on generation');
  const line = md.split('\n').find((l) => l.startsWith('Why: '))!;
  expect(line).toContain('generation create outcome unknown (xxx');
  expect(line).toMatch(/…\s\(whole: `reelflow status`\)$/);
  expect(line.length).toBeLessThan(250);
  expect(md.split('\n')[0]).toBe('`reelflow resolve p-1 --task-id <id> | --resubmit | --abandon`');
});

test('at most 12 lines, the resolve command first when an operator is asked: all four stages, a wait and an error', () => {
  const at = (h: number) => `2026-11-26T0${h}:00:00.000Z`;
  const md = renderDetails(
    status({
      state: 'waiting-operator',
      stage: 'erase',
      stages: {
        review: { state: 'done', startedAt: at(1), endedAt: at(2), progress: { done: 3, total: 3 } },
        assets: { state: 'done', startedAt: at(2), endedAt: at(3), progress: { done: 2, total: 2 } },
        generation: { state: 'done', startedAt: at(3), endedAt: at(4) },
        erase: { state: 'running', startedAt: at(4), detail: 'create outcome unknown' },
      },
      waiting: { workflowId: 'p-1', stage: 'erase', step: 'erase', attempt: 2, reason: 'timed out', since: at(5) },
      error: 'an earlier attempt failed',
    }),
  );
  const lines = md.split('\n');
  expect(lines.length).toBeLessThanOrEqual(12);
  expect(lines[0]).toBe('`reelflow resolve p-1 --task-id <id> | --resubmit | --abandon`');
  expect(lines[1]).toBe('**Waiting for an operator** on erase');
  expect(lines).toContain('Why: timed out');
  expect(['review', 'assets', 'generation', 'erase'].map((stage) => rowOf(md, stage))).not.toContain(undefined);
  expect(rowOf(md, 'erase')).toMatch(/^\| erase \| waiting-operator: create outcome unknown \|/);
  expect(lines.at(-1)).toBe('Error: an earlier attempt failed');
});

test('a pipeline nobody is asked about opens with its state, and has no resolve command', () => {
  const lines = renderDetails(status()).split('\n');
  expect(lines[0]).toBe('**running** · stage generation');
  expect(lines.join('\n')).not.toContain('reelflow resolve');
});

test('text from outside cannot break the table', () => {
  const md = renderDetails(status({ stages: { ...status().stages, erase: { state: 'failed', detail: 'a|b\nc' } } }));
  expect(rowOf(md, 'erase')).toBe('| erase | failed: a\\|b\\nc |  |  |  |');
});

test('a stage reused by a rerun says where its output came from', () => {
  const s = status();
  s.stages.assets = { state: 'done', reusedFrom: 'p-0' };
  expect(rowOf(renderDetails(s), 'assets')).toBe('| assets | done (reused from p-0) | asset-1 |  |  |');
});

test("a tenant's concurrency slot: queued for one, held, and held while waiting for an operator", () => {
  const since = '2026-11-27T00:00:00.000Z';
  const tenant = { tenant: 'acme', priority: 'batch' as const };
  expect(renderDetails(status({ ...tenant, state: 'queued', slot: { state: 'queued', limit: 5, since } }))).toContain(
    '**queued** · stage generation · tenant acme (batch) · queued for a slot (limit 5)',
  );
  const held = { ...tenant, slot: { state: 'held' as const, slot: 3, limit: 5, since } };
  expect(renderDetails(status(held))).toContain('· tenant acme (batch) · holds slot 3 of 5');
  const waiting = {
    workflowId: 'p-1',
    stage: 'generation' as const,
    step: 'generation',
    attempt: 1,
    reason: 'r',
    since,
  };
  expect(renderDetails(status({ ...held, waiting }))).toContain(
    '**Waiting for an operator** on generation · holds slot 3 of 5',
  );
});
