/** Batches and schedules without a server: ids, line numbering, the batch state, intervals, usage errors. */
import { batchLines, batchWorkflowId, checkBatchLine, defaultBatchId } from '../../src/starters/client/batch';
import { batchState } from '../../src/starters/client/batch-wait';
import type { PipelineSummary } from '../../src/starters/client/pipeline-client';
import { buildListQuery } from '../../src/starters/client/pipeline-client';
import { ProgressBar, renderBar } from '../../src/starters/cli/progress-bar';
import { parseEvery } from '../../src/starters/client/schedules';
import { cli } from '../support/cli';

describe('batch ids', () => {
  test('a line keeps its id whatever its surrounding white space; another line gets another', () => {
    const id = batchWorkflowId('launch-1', '{"a":1}');
    expect(id).toMatch(/^launch-1-[0-9a-f]{16}$/);
    expect(batchWorkflowId('launch-1', '  {"a":1}\r')).toBe(id);
    expect(batchWorkflowId('launch-1', '{"a":2}')).not.toBe(id);
    expect(batchWorkflowId('launch-2', '{"a":1}')).not.toBe(id);
  });

  test('the default batch id follows the content', () => {
    expect(defaultBatchId('{"a":1}\n')).toMatch(/^batch-[0-9a-f]{12}$/);
    expect(defaultBatchId('{"a":1}\n')).toBe(defaultBatchId('{"a":1}\n'));
    expect(defaultBatchId('{"a":1}\n')).not.toBe(defaultBatchId('{"a":2}\n'));
  });

  test('a batch id that would break a workflow id or a query is refused', () => {
    expect(() => batchWorkflowId("x' OR '1'='1", '{}')).toThrow(/^batchId: /);
    expect(() => batchWorkflowId('', '{}')).toThrow(/^batchId: /);
    expect(buildListQuery({ batchId: 'launch-1' })).toBe(
      "WorkflowType = 'videoPipeline' AND ReelflowBatch = 'launch-1'",
    );
  });

  test('lines are numbered as in the file; blank ones are skipped', () => {
    expect(batchLines('\uFEFF{"a":1}\n\n  \r\n{"b":2}\r\n')).toEqual([
      { line: 1, text: '{"a":1}' },
      { line: 4, text: '{"b":2}' },
    ]);
  });
});

test('a bad line is named by its line number, and its column or field', () => {
  expect(checkBatchLine({ line: 7, text: '{"name" 1}' }, 'defs.jsonl')).toEqual({
    line: 7,
    outcome: 'failed',
    error: expect.stringMatching(/^defs\.jsonl:7:9: invalid JSON: Expected ':' after property name/),
  });
  // Where V8 gives no position, the line alone.
  expect(checkBatchLine({ line: 8, text: '{"name": }' }, 'defs.jsonl')).toMatchObject({
    error: expect.stringMatching(/^defs\.jsonl:8: invalid JSON: /),
  });
  expect(checkBatchLine({ line: 2, text: '[1]' }, 'defs.jsonl')).toMatchObject({
    line: 2,
    outcome: 'failed',
    field: '(root)',
    error: 'defs.jsonl:2: (root): a pipeline definition is a JSON object, got an array',
  });
  expect(
    checkBatchLine({ line: 3, text: '{"generation":{"content":[{"type":"text","text":"x"}]}}' }, 'd'),
  ).toMatchObject({
    line: 3,
    outcome: 'failed',
    field: 'generation.model',
    error: expect.stringMatching(/^d:3: generation\.model: /),
  });
  expect(
    checkBatchLine({ line: 1, text: '{"erase":false,"review":{"media":["https://a.example/x.png"]}}' }, 'd'),
  ).toMatchObject({
    definition: { review: { media: ['https://a.example/x.png'] } },
  });
});

describe('batchState', () => {
  const p = (workflowId: string, executionStatus: string): PipelineSummary => ({
    workflowId,
    runId: `${workflowId}-${executionStatus}`,
    executionStatus,
    vendorTaskIds: [],
    taskQueue: 'q',
    startTime: '2026-01-01T00:00:00.000Z',
  });

  test('done when every listed pipeline has closed and enough are listed', () => {
    expect(batchState('b', [p('a', 'completed'), p('b', 'failed')])).toMatchObject({
      done: true,
      total: 2,
      closed: 2,
      counts: { completed: 1, failed: 1 },
    });
    expect(batchState('b', [p('a', 'completed'), p('b', 'running')]).done).toBe(false);
    expect(batchState('b', [p('a', 'completed')], 2).done).toBe(false);
    expect(batchState('b', []).done).toBe(false);
  });

  test('a run that continued as new gives way to its successor, and is not an end', () => {
    const alone = batchState('b', [p('a', 'continued-as-new')]);
    expect(alone).toMatchObject({ done: false, total: 1, closed: 0 });
    for (const listed of [
      [p('a', 'continued-as-new'), p('a', 'completed')],
      [p('a', 'completed'), p('a', 'continued-as-new')],
    ]) {
      expect(batchState('b', listed)).toMatchObject({ done: true, total: 1, counts: { completed: 1 } });
    }
  });
});

test('intervals: whole seconds, at least one (the server minimum)', () => {
  expect(parseEvery('2s')).toBe(2_000);
  expect(parseEvery('5m')).toBe(300_000);
  expect(parseEvery('1d')).toBe(86_400_000);
  for (const bad of ['0s', '500ms', '1.5s', 'soon', '']) expect(() => parseEvery(bad)).toThrow(/^every: /);
});

test('the progress bar redraws one line and ends it', () => {
  expect(renderBar(3, 4, 8)).toBe('[######--] 3/4');
  expect(ProgressBar.on({ write: () => true }, 'x')).toBeUndefined();
  let out = '';
  const bar = ProgressBar.on({ write: (s: string) => (out += s), isTTY: true }, 'batch b')!;
  bar.update(1, 2);
  bar.update(2, 2, 'done');
  bar.finish();
  expect(out).toBe('\r\x1b[2Kbatch b [##########----------] 1/2\r\x1b[2Kbatch b [####################] 2/2  done\n');
});

describe('usage errors name the option (nothing connects: the address is unreachable)', () => {
  const offline = ['--address', '127.0.0.1:1', '--json'];
  const cases: [string[], string, RegExp][] = [
    [['start'], '<file>', /needs <file> \(or --batch <file.jsonl>\)/],
    [['start', 'a.json', '--batch', 'b.jsonl'], '--batch', /takes no <file>/],
    [['start', '--batch', 'b.jsonl', '--workflow-id', 'w'], '--workflow-id', /does not go with --batch/],
    [['start', '--batch', 'b.jsonl', '--id-prefix', 'p'], '--id-prefix', /does not go with --batch/],
    [['start', 'a.json', '--batch-id', 'x'], '--batch-id', /goes with --batch/],
    [['start', '--batch', 'b.jsonl', '--batch-id', 'a b'], '--batch-id', /letters, digits/],
    [['wait'], '--batch', /needs --batch <id>/],
    [['wait', '--batch', "x'"], '--batch', /letters, digits/],
    [['wait', '--batch', 'b', '--expect', '0'], '--expect', /not a positive integer/],
    [['schedule', 'create', 's1', 'a.json'], '--cron', /needs --cron <expr> or --every <duration>/],
    [['schedule', 'create', 's1', 'a.json', '--cron', '@daily', '--every', '1h'], '--every', /not both/],
    [['schedule', 'create', 's1', 'a.json', '--every', '500ms'], '--every', /at least 1s/],
    [['schedule', 'create', 's1', 'a.json', '--every', '1h', '--overlap', 'queue'], '--overlap', /not one of skip/],
    [['schedule', 'create', 's 1', 'a.json', '--every', '1h'], '<schedule-id>', /letters, digits/],
    [['schedule', 'create', 's1', 'a.json', '--every', '1h', '--id-prefix', 'a/b'], '--id-prefix', /letters/],
    [['schedule', 'create', 's1'], '<schedule-id> <file>', /needs <schedule-id> <file>/],
    [['schedule', 'delete'], '<schedule-id>', /needs <schedule-id>/],
    [
      ['schedule', 'resume', 's1'],
      undefined as never,
      /unknown subcommand "schedule resume".*; one of create, list, update, pause, unpause, trigger, delete$/,
    ],
  ];
  test.each(cases)('%j', async (argv, option, message) => {
    const r = await cli([...argv, ...offline]);
    expect(r.code).toBe(2);
    const { error } = r.json();
    expect(error.message).toMatch(message);
    expect(error.option).toBe(option);
  });

  test('a batch file of blank lines starts nothing', async () => {
    const r = await cli(['start', '--batch', '-', ...offline], { stdin: '\n  \n' });
    expect(r.code).toBe(2);
    expect(r.json().error).toMatchObject({ option: '--batch', message: expect.stringMatching(/no definitions/) });
  });
});
