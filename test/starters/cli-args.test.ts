import { COMMANDS, UsageError, parseCommandLine } from '../../src/starters/cli/spec';
import { taskQueueOf } from '../../src/starters/cli/commands/definition-arg';
import { CommandContext } from '../../src/starters/cli/output';
import { buildListQuery } from '../../src/starters/client/pipeline-client';
import { cli } from '../support/cli';

function usage(argv: string[]): UsageError {
  try {
    parseCommandLine(argv);
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return err as UsageError;
  }
  throw new Error(`expected a usage error for ${argv.join(' ')}`);
}

describe('parseCommandLine', () => {
  test('commands, positionals and options', () => {
    const p = parseCommandLine(['run', 'examples/pipeline.json', '--task-queue', 'q1', '--json']);
    expect(p).toMatchObject({ kind: 'command', json: true, positionals: ['examples/pipeline.json'] });
    expect(p.kind === 'command' && p.command.name).toBe('run');
    expect(p.kind === 'command' && p.values['task-queue']).toBe('q1');
  });

  test('the task queue: --task-queue, else $REELFLOW_TASK_QUEUE (the worker\'s), else "reelflow"', () => {
    const queue = (argv: string[], env: NodeJS.ProcessEnv) => {
      const p = parseCommandLine(argv);
      if (p.kind !== 'command') throw new Error('not a command');
      const io = { stdout: process.stdout, stderr: process.stderr, env, cwd: '.' };
      return taskQueueOf(new CommandContext(p.command.name, p.positionals, p.values, io));
    };
    const env = { REELFLOW_TASK_QUEUE: ' shop-eu ' };
    expect(queue(['run', 'x.json', '--task-queue', 'q1'], env)).toBe('q1');
    expect(queue(['start', 'x.json'], env)).toBe('shop-eu');
    expect(queue(['schedule', 'create', 's', 'x.json', '--every', '1h'], { REELFLOW_TASK_QUEUE: '  ' })).toBe(
      'reelflow',
    );
    expect(queue(['run', 'x.json'], {})).toBe('reelflow');
  });

  test('subcommands of the vendor groups', () => {
    const p = parseCommandLine(['assets', 'list', '--group', 'g1', '--group', 'g2', '--profile', 'acme']);
    expect(p.kind === 'command' && p.command.name).toBe('assets list');
    expect(p.kind === 'command' && p.values.group).toEqual(['g1', 'g2']);
    const r = parseCommandLine(['review', 'submit', 'https://a.example/x.jpg', 'https://a.example/y.jpg', '--async']);
    expect(r.kind === 'command' && r.positionals).toHaveLength(2);
  });

  test('help forms', () => {
    expect(parseCommandLine([])).toEqual({ kind: 'usage' });
    expect(parseCommandLine(['--help'])).toEqual({ kind: 'help' });
    expect(parseCommandLine(['run', '--help'])).toMatchObject({ kind: 'help', command: { name: 'run' } });
    expect(parseCommandLine(['help', 'groups', 'create'])).toMatchObject({
      kind: 'help',
      command: { name: 'groups create' },
    });
    expect(parseCommandLine(['assets'])).toEqual({ kind: 'usage', group: 'assets' });
    expect(parseCommandLine(['schedule', '--help'])).toEqual({ kind: 'help', group: 'schedule' });
    expect(parseCommandLine(['--version'])).toEqual({ kind: 'version' });
    expect(parseCommandLine(['-V'])).toEqual({ kind: 'version' });
  });

  test('usage errors name the option or argument', () => {
    expect(usage(['statsu', 'x']).message).toBe('unknown command "statsu" (did you mean "status"?)');
    expect(usage(['run']).message).toBe('"run" needs <file>');
    expect(usage(['run', 'a.json', 'b.json']).message).toBe('"run" takes <file>; unexpected "b.json"');
    expect(usage(['list', 'extra']).message).toBe('"list" takes no arguments; unexpected "extra"');
    const unknown = usage(['list', '--stauts', 'running']);
    expect(unknown.message).toBe('unknown option --stauts for "list" (did you mean "--status"?)');
    expect(unknown.option).toBe('--stauts');
    expect(usage(['list', '--status', 'sleeping']).message).toMatch(
      /^option --status: "sleeping" is not one of running, waiting-operator, stuck, queued, waiting-budget, completed/,
    );
    expect(usage(['list', '--status']).message).toBe('option --status needs a value <status>');
    expect(usage(['list', '--limit', '0']).message).toBe('option --limit: "0" is not a positive integer');
    expect(usage(['list', '--json=yes']).message).toBe('option --json takes no value');
    expect(usage(['list', '--waiting', '--json=1']).option).toBe('--json');
    const negative = usage(['list', '--limit', '-3']);
    expect(negative.message).toBe('option --limit: "-3" is not a positive integer');
    expect(negative.option).toBe('--limit');
    expect(usage(['list', '--query', '--json']).message).toMatch(/^option --query needs a value <query>/);
    expect(usage(['groups', 'rename', 'x']).message).toBe(
      'unknown subcommand "groups rename"; one of list, get, create, update, delete',
    );
    expect(usage(['--json', 'list']).message).toMatch(/^expected a command before --json/);
  });

  test('every command has help with its options', () => {
    for (const c of COMMANDS) {
      const p = parseCommandLine([...c.name.split(' '), '--help']);
      expect(p).toMatchObject({ kind: 'help', command: { name: c.name } });
      expect(Object.keys(c.options)).toEqual(expect.arrayContaining(['json', 'help']));
    }
  });
});

describe('runCli usage errors', () => {
  test('bare reelflow and bare reelflow schedule: usage on stderr, exit 2', async () => {
    const bare = await cli([]);
    expect(bare.code).toBe(2);
    expect(bare.stdout).toBe('');
    expect(bare.stderr).toContain('reelflow run <file>');
    const schedule = await cli(['schedule']);
    expect(schedule.code).toBe(2);
    expect(schedule.stderr).toContain('reelflow schedule create <schedule-id> <file>');
  });

  test('-V prints the version like --version', async () => {
    const v = await cli(['-V']);
    expect(v.code).toBe(0);
    expect(v.stdout).toMatch(/^reelflow \d+\.\d+\.\d+\n$/);
  });

  test('list --waiting with another --status is a usage error before anything connects', async () => {
    const r = await cli(['list', '--waiting', '--status', 'completed'], { env: { TEMPORAL_ADDRESS: '127.0.0.1:1' } });
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe(
      'reelflow: option --waiting is --status waiting-operator; it cannot go with --status completed',
    );
  });

  test('the help pointer is printed once', async () => {
    for (const argv of [['statsu'], ['--json', 'list'], ['list', '--limit', '-3']]) {
      const r = await cli(argv);
      expect(r.code).toBe(2);
      expect(r.stderr.match(/reelflow (\S+ )?--help/g)).toHaveLength(1);
    }
  });

  test('exit 2, one line naming the option, and the help pointer', async () => {
    const r = await cli(['list', '--status', 'sleeping']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.split('\n')[0]).toMatch(/^reelflow: option --status: "sleeping" is not one of/);
    expect(r.stderr).toContain('see: reelflow list --help');
  });

  test('--json errors are one JSON document on stdout', async () => {
    const r = await cli(['resolve', 'wf-1', '--resubmit', '--abandon', '--json']);
    expect(r.code).toBe(2);
    expect(r.json()).toEqual({
      error: { kind: 'usage', message: '"resolve" takes only one of --resubmit, --abandon', option: '--abandon' },
    });
  });

  test('a bad --id-prefix is a usage error before anything connects', async () => {
    const r = await cli(['start', 'examples/review-only.json', '--id-prefix', 'a b', '--address', '127.0.0.1:1']);
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toMatch(/^reelflow: option --id-prefix: letters, digits/);
  });

  test('resolve needs a decision', async () => {
    const r = await cli(['resolve', 'wf-1']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('"resolve" needs one of --task-id <id>, --resubmit, --abandon');
  });

  test('help goes to stdout with exit 0', async () => {
    const main = await cli(['--help']);
    expect(main.code).toBe(0);
    for (const c of COMMANDS) expect(main.stdout).toContain(`reelflow ${c.name}`);
    const run = await cli(['run', '--help']);
    expect(run.stdout).toMatch(/^usage: reelflow run <file> \[options\]/);
    expect(run.stdout).toContain('--task-queue <queue>');
  });

  test('vendor commands name the missing configuration variable, never a value', async () => {
    const env = { VENDOR_BASE_URL: 'http://127.0.0.1:9', VENDOR_IDENTITY_URL: 'http://127.0.0.1:9' };
    const r = await cli(['groups', 'list', '--profile', 'acme'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('REELFLOW_PROFILE_ACME_ACCESS_TOKEN is not set');
    const noUrl = await cli(['groups', 'list', '--json'], { env: {} });
    expect(noUrl.json()).toMatchObject({ error: { kind: 'config', variable: 'VENDOR_BASE_URL' } });
  });
});

describe('buildListQuery', () => {
  test('filters on the search attributes and the execution status', () => {
    expect(buildListQuery()).toBe("WorkflowType = 'videoPipeline'");
    expect(buildListQuery({ status: 'failed', stage: 'generation', vendorTaskId: 'task-1' })).toBe(
      "WorkflowType = 'videoPipeline' AND ExecutionStatus = 'Failed' AND ReelflowStage = 'generation' AND ReelflowVendorTaskIds = 'task-1'",
    );
    expect(buildListQuery({ status: 'waiting-operator' })).toBe(
      "WorkflowType = 'videoPipeline' AND ExecutionStatus = 'Running' AND ReelflowStatus = 'waiting-operator'",
    );
    // A tenant's pipelines over its limit or its budget (docs/tenants.md).
    expect(buildListQuery({ status: 'queued', tenant: 'acme' })).toBe(
      "WorkflowType = 'videoPipeline' AND ExecutionStatus = 'Running' AND ReelflowStatus = 'queued' AND ReelflowTenant = 'acme'",
    );
    expect(buildListQuery({ status: 'waiting-budget' })).toBe(
      "WorkflowType = 'videoPipeline' AND ExecutionStatus = 'Running' AND ReelflowStatus = 'waiting-budget'",
    );
  });

  test('refuses values that would break out of the query', () => {
    expect(() => buildListQuery({ vendorTaskId: "x' OR '1'='1" })).toThrow(/^vendorTaskId: /);
  });

  test("the user's clause stays inside its parentheses: it cannot escape the WorkflowType filter", () => {
    expect(buildListQuery({ query: "x = 1 OR WorkflowType = 'notifyWebhook'" })).toBe(
      "WorkflowType = 'videoPipeline' AND (x = 1 OR WorkflowType = 'notifyWebhook')",
    );
    // Parentheses and quotes inside string literals are text, not structure.
    expect(buildListQuery({ query: "WorkflowId = 'a)(b' AND (StartTime > '2025-01-01T00:00:00Z')" })).toBe(
      "WorkflowType = 'videoPipeline' AND (WorkflowId = 'a)(b' AND (StartTime > '2025-01-01T00:00:00Z'))",
    );
    const escapes: [string, RegExp][] = [
      ["x = 1) OR (WorkflowType = 'notifyWebhook'", /^query: a "\)" closes a parenthesis it did not open/],
      ["x = 1 OR (WorkflowType = 'notifyWebhook'", /^query: a "\(" is not closed/],
      ["x = 'a", /^query: a ' quote is not closed/],
      ["x = 1 /* ( */ ) OR (WorkflowType = 'notifyWebhook'", /^query: comments are not allowed/],
      ['x = 1 -- ', /^query: comments are not allowed/],
      ["WorkflowId = 'a\\' ) OR (WorkflowType = 'n'", /^query: backslashes are not allowed/],
    ];
    for (const [query, message] of escapes) expect(() => buildListQuery({ query })).toThrow(message);
  });
});
