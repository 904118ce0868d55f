/**
 * Tenant and priority as start options, the selections of the bulk operations and their
 * usage errors: pure, no server (every usage error is raised before anything connects:
 * TEMPORAL_ADDRESS points nowhere, so a connect would fail with exit 1, not 2).
 */
import { buildListQuery } from '../../src/starters/client/pipeline-client';
import { checkTenantOptions, withTenantOptions } from '../../src/starters/client/tenant-options';
import { runningQuery } from '../../src/starters/client/bulk-cancel';
import { nextRerunId } from '../../src/starters/client/batch-rerun';
import { batchState } from '../../src/starters/client/batch-wait';
import type { PipelineSummary } from '../../src/starters/client/pipeline-client';
import { parseDefinition } from '../../src/definition/definition';
import { cli } from '../support/cli';

const def = { generation: { model: 'video-model-1', content: [{ type: 'text' as const, text: 'a kite' }] } };
const nowhere = { ...process.env, TEMPORAL_ADDRESS: '127.0.0.1:1' };

describe('tenant and priority at start', () => {
  test("they replace the definition's options, which keep the rest", () => {
    const given = { ...def, options: { tenant: 'old', priority: 'batch' as const, callbacks: true } };
    const out = withTenantOptions(given, { tenant: 'acme', priority: 'interactive' });
    expect(out.options).toEqual({ tenant: 'acme', priority: 'interactive', callbacks: true });
    expect(parseDefinition(out).options).toMatchObject({ tenant: 'acme', priority: 'interactive' });
    expect(given.options.tenant).toBe('old'); // the caller's object is left alone
    expect(withTenantOptions(def, { priority: 'batch' }).options).toEqual({ priority: 'batch' });
    expect(withTenantOptions(def, {})).toBe(def);
  });

  test("bad values are refused naming the option, with the schema's reason", () => {
    expect(() => checkTenantOptions({ tenant: 'has space' })).toThrow(/^tenant: may hold only letters, digits/);
    expect(() => checkTenantOptions({ tenant: 'x'.repeat(65) })).toThrow(/^tenant: must be at most 64 characters/);
    expect(() => checkTenantOptions({ tenant: '' })).toThrow(/^tenant: must not be empty/);
    expect(() => checkTenantOptions({ priority: 'urgent' as never })).toThrow(
      /^priority: one of interactive, normal, batch \(got "urgent"\)/,
    );
  });
});

describe('selections', () => {
  test('list --tenant / --task-queue filter on ReelflowTenant and TaskQueue', () => {
    expect(buildListQuery({ tenant: 'acme', taskQueue: 'q1' })).toBe(
      "WorkflowType = 'videoPipeline' AND ReelflowTenant = 'acme' AND TaskQueue = 'q1'",
    );
    expect(() => buildListQuery({ tenant: "a' OR '1'='1" })).toThrow(/^tenant: /);
  });

  test("a bulk cancel names running pipelines only; the user's clause stays in parentheses", () => {
    expect(runningQuery({ tenant: 'acme', query: "WorkflowId = 'a' OR WorkflowId = 'b'" })).toBe(
      "WorkflowType = 'videoPipeline' AND ExecutionStatus = 'Running' AND ReelflowTenant = 'acme' AND (WorkflowId = 'a' OR WorkflowId = 'b')",
    );
    expect(runningQuery({ batchId: 'b1' })).toBe(
      "WorkflowType = 'videoPipeline' AND ExecutionStatus = 'Running' AND ReelflowBatch = 'b1'",
    );
    expect(() => runningQuery({ taskQueue: 'q' })).toThrow(/^selection: give a tenant, a batch id or a query/);
    expect(() => runningQuery({ query: "x = 1) OR (WorkflowType = 'other'" })).toThrow(/^query: a "\)" closes/);
  });

  test('a batch rerun id counts generations of reruns', () => {
    expect(nextRerunId('b1-0123')).toBe('b1-0123-rerun1');
    expect(nextRerunId('b1-0123-rerun1')).toBe('b1-0123-rerun2');
    expect(nextRerunId('b1-0123-rerun9')).toBe('b1-0123-rerun10');
  });

  test('a batch keeps one entry per line: a rerun replaces the pipeline it reruns', () => {
    const p = (workflowId: string, executionStatus: string) =>
      ({
        workflowId,
        executionStatus,
        runId: 'r',
        vendorTaskIds: [],
        taskQueue: 'q',
        startTime: '',
      }) as PipelineSummary;
    const listed = [p('b-1', 'failed'), p('b-1-rerun1', 'failed'), p('b-1-rerun2', 'running'), p('b-2', 'completed')];
    const state = batchState('b', listed, 2);
    expect(state.pipelines.map((x) => x.workflowId)).toEqual(['b-1-rerun2', 'b-2']);
    expect(state).toMatchObject({ total: 2, done: false, counts: { running: 1, completed: 1 } });
  });
});

describe('usage errors name the flag (exit 2, nothing connects)', () => {
  const cases: [string[], RegExp][] = [
    [
      ['start', 'examples/pipeline.json', '--priority', 'urgent'],
      /^reelflow: option --priority: "urgent" is not one of interactive, normal, batch/,
    ],
    [['start', 'examples/pipeline.json', '--tenant', 'no spaces'], /^reelflow: option --tenant: may hold only letters/],
    [['run', 'examples/pipeline.json', '--tenant', 'x'.repeat(65)], /^reelflow: option --tenant: must be at most 64/],
    [
      ['schedule', 'create', 's1', 'examples/pipeline.json', '--every', '1h', '--tenant', 'a/b'],
      /^reelflow: option --tenant: /,
    ],
    [['start', '--batch', 'x.jsonl', '--priority', 'high'], /^reelflow: option --priority: "high" is not one of/],
    [['list', '--tenant', "a'b"], /^reelflow: option --tenant: must be non-empty without quotes/],
    [['cancel'], /^reelflow: "cancel" needs <workflow-id>, or --tenant, --batch or --query/],
    [['cancel', 'wf-1', '--tenant', 'acme'], /^reelflow: option --tenant does not go with a <workflow-id>/],
    [['cancel', 'wf-1', '--yes'], /^reelflow: option --yes does not go with a <workflow-id>/],
    [['cancel', '--task-queue', 'q'], /^reelflow: "cancel" needs <workflow-id>, or --tenant/],
    [['cancel', '--tenant', 'acme', '--wait'], /^reelflow: option --wait goes with one <workflow-id>/],
    [['cancel', '--batch', "b'1"], /^reelflow: option --batch: must be non-empty without quotes/],
    [['cancel', '--query', 'x = (1'], /^reelflow: option --query: a "\(" is not closed/],
    [['rerun'], /^reelflow: "rerun" needs <workflow-id> \(or --batch <id>\)/],
    [['rerun', 'wf-1', '--yes'], /^reelflow: option --yes goes with --batch <id>/],
    [['rerun', '--batch', 'b1', '--id', 'x'], /^reelflow: option --id does not go with --batch/],
    [['rerun', '--batch', 'b1', 'wf-1'], /^reelflow: "rerun --batch" takes no <workflow-id>/],
    [['rerun', '--batch', 'b 1'], /^reelflow: option --batch: 1 to 200 letters/],
  ];
  test.each(cases)('%j', async (argv, message) => {
    const r = await cli(argv, { env: nowhere });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
  });
});
