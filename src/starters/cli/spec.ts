/**
 * The `reelflow` command line: every command, its arguments and options, its help, and
 * the parser (node:util parseArgs, strict). Pure: no I/O, so usage errors are testable.
 */
import { parseArgs } from 'node:util';
import { MAX_REVIEW_BATCH } from '../../vendor-api/documented-values';
import { LIST_STAGES, LIST_STATUSES } from '../client/pipeline-client';
import { OVERLAP_POLICIES } from '../client/schedules';
import { RERUN_FROM } from '../client/rerun';
import { PRIORITY_LEVELS } from '../../definition/schema';
import { didYouMean } from '../../definition/suggest';

export interface OptionSpec {
  type: 'string' | 'boolean';
  short?: string;
  multiple?: boolean;
  /** Placeholder in help, e.g. "<id>". */
  value?: string;
  help: string;
  choices?: readonly string[];
  /** Positive integer. */
  integer?: boolean;
}

export type Needs = 'temporal' | 'vendor' | 'codec' | 'worker' | 'none';

export interface CommandSpec {
  /** e.g. "run", "groups list". */
  name: string;
  args: string;
  summary: string;
  description?: string;
  positionals: { min: number; max: number; names: string };
  options: Record<string, OptionSpec>;
  needs: Needs;
  examples?: string[];
  /** The values the first argument takes (e.g. `completion bash|zsh`), checked and completed. */
  argChoices?: readonly string[];
}

export class UsageError extends Error {
  override readonly name = 'UsageError';
  constructor(
    message: string,
    /** The option or argument at fault, e.g. "--status" or "<file>". */
    readonly option?: string,
    /** The command whose help applies. */
    readonly command?: string,
  ) {
    super(message);
  }
}

const COMMON: Record<string, OptionSpec> = {
  json: { type: 'boolean', help: 'machine-readable output: one JSON document on stdout' },
  help: { type: 'boolean', short: 'h', help: 'show this help' },
};

const TEMPORAL: Record<string, OptionSpec> = {
  address: {
    type: 'string',
    value: '<host:port>',
    help: 'Temporal frontend (default: $TEMPORAL_ADDRESS or the config profile)',
  },
  namespace: {
    type: 'string',
    value: '<name>',
    help: 'Temporal namespace (default: $TEMPORAL_NAMESPACE or the config profile)',
  },
  'temporal-profile': {
    type: 'string',
    value: '<name>',
    help: 'profile of the Temporal config file (default: $TEMPORAL_PROFILE or "default")',
  },
};

const VENDOR: Record<string, OptionSpec> = {
  profile: {
    type: 'string',
    value: '<name>',
    help: 'vendor credential profile: REELFLOW_PROFILE_<NAME>_ACCESS_TOKEN / _API_KEY (default "default")',
  },
};

const SIZE: Record<string, OptionSpec> = {
  'max-payload-bytes': {
    type: 'string',
    value: '<n>',
    integer: true,
    help: "refuse a definition bigger than this as workflow input (default: $REELFLOW_MAX_PAYLOAD_BYTES, else Temporal's 2097152)",
  },
};

/** Replace the definition's options.tenant / options.priority (docs/tenants.md). */
const TENANCY: Record<string, OptionSpec> = {
  tenant: {
    type: 'string',
    value: '<tenant>',
    help: "the pipeline's tenant (replaces options.tenant; the worker's tenant configuration decides)",
  },
  priority: {
    type: 'string',
    value: '<level>',
    choices: PRIORITY_LEVELS,
    help: `${PRIORITY_LEVELS.join(', ')} (replaces options.priority; lowered to the tenant's highest allowed)`,
  },
};

const START: Record<string, OptionSpec> = {
  ...SIZE,
  ...TENANCY,
  'task-queue': {
    type: 'string',
    value: '<queue>',
    help: 'task queue of the reelflow worker (default $REELFLOW_TASK_QUEUE, else "reelflow")',
  },
  'workflow-id': { type: 'string', value: '<id>', help: 'workflow id (default reelflow-<name>-<random>)' },
  'id-prefix': {
    type: 'string',
    value: '<prefix>',
    help: 'first part of the generated workflow id (default "reelflow")',
  },
};

const ASSET_TYPES = ['Image', 'Video', 'Audio'] as const;

function cmd(
  name: string,
  args: string,
  summary: string,
  needs: Needs,
  positionals: [number, number],
  options: Record<string, OptionSpec> = {},
  extra: Pick<CommandSpec, 'description' | 'examples' | 'argChoices'> = {},
): CommandSpec {
  const base = needs === 'temporal' ? TEMPORAL : needs === 'vendor' ? VENDOR : {};
  return {
    name,
    args,
    summary,
    needs,
    positionals: { min: positionals[0], max: positionals[1], names: args.replace(/\[?--.*$/, '').trim() },
    options: { ...options, ...base, ...COMMON },
    ...extra,
  };
}

export const COMMANDS: readonly CommandSpec[] = [
  cmd(
    'run',
    '<file>',
    'start a pipeline and follow it live until it ends',
    'temporal',
    [1, 1],
    {
      ...START,
      interval: { type: 'string', value: '<ms>', integer: true, help: 'between status queries (default 1000)' },
    },
    {
      description:
        'Exit code: 0 completed, 1 failed or timed out, 3 cancelled or terminated. Ctrl-C stops following; the pipeline keeps running.',
      examples: ['reelflow run examples/pipeline.json', 'cat def.json | reelflow run - --json'],
    },
  ),
  cmd(
    'start',
    '<file>',
    'start a pipeline and print its workflow id (--batch: one per line of a file)',
    'temporal',
    [0, 1],
    {
      ...START,
      batch: {
        type: 'string',
        value: '<file.jsonl>',
        help: 'start one pipeline per line (JSON Lines; blank lines skipped) instead of <file>',
      },
      'batch-id': {
        type: 'string',
        value: '<id>',
        help: 'with --batch: the batch id (default batch-<hash of the file>); ids are <batch id>-<hash of the line>',
      },
    },
    {
      description:
        "With --batch, re-running the same batch starts nothing twice (lines already started are reported as such, while Temporal keeps their runs); a bad line is reported with its line number and the others still start. Exit code 1 when a line failed. --tenant and --priority replace each line's options.tenant and options.priority.",
      examples: [
        'id=$(reelflow start examples/pipeline.json)',
        'reelflow start --batch defs.jsonl --batch-id launch-42 --json',
        'reelflow start examples/pipeline.json --tenant acme --priority interactive',
      ],
    },
  ),
  cmd(
    'status',
    '<workflow-id>',
    'show the live status of a pipeline (stages, progress, vendor task ids)',
    'temporal',
    [1, 1],
    {
      follow: { type: 'boolean', short: 'f', help: 'keep following until the pipeline ends (like run)' },
    },
  ),
  cmd(
    'result',
    '<workflow-id>',
    'wait for a pipeline to end and print its result',
    'temporal',
    [1, 1],
    {},
    {
      description: 'Exit code: 0 completed, 1 failed or timed out, 3 cancelled or terminated.',
    },
  ),
  cmd(
    'cancel',
    '[<workflow-id>]',
    'cancel a pipeline, or the running pipelines of a tenant, batch or query (vendor tasks already created keep running at the vendor)',
    'temporal',
    [0, 1],
    {
      wait: { type: 'boolean', help: 'wait until the pipeline has ended (one pipeline)' },
      tenant: { type: 'string', value: '<tenant>', help: 'the running pipelines of this tenant' },
      batch: { type: 'string', value: '<id>', help: 'the running pipelines of this batch' },
      query: {
        type: 'string',
        value: '<query>',
        help: 'the running pipelines this visibility query matches (kept in parentheses, ANDed)',
      },
      'task-queue': { type: 'string', value: '<queue>', help: 'only the pipelines on this task queue' },
      yes: { type: 'boolean', help: 'with --tenant, --batch or --query: cancel them (without it: count only)' },
    },
    {
      description:
        'Give <workflow-id>, or any of --tenant, --batch and --query (ANDed). Without --yes the running pipelines that match are counted and nothing is cancelled; with --yes they are cancelled by a Temporal batch operation (each by its handle where the server refuses one), with progress on stderr. Exit code 1 when any cancel failed.',
      examples: [
        'reelflow cancel reelflow-demo-k3j9x2ab --wait',
        'reelflow cancel --tenant acme',
        'reelflow cancel --tenant acme --query "ReelflowStage = \'generation\'" --yes',
      ],
    },
  ),
  cmd(
    'resolve',
    '<workflow-id>',
    'answer a pipeline waiting for an operator after an ambiguous create',
    'temporal',
    [1, 1],
    {
      'task-id': {
        type: 'string',
        value: '<id>',
        help: 'the vendor task id you found (vendor console, callback logs)',
      },
      resubmit: { type: 'boolean', help: 'nothing was created: create again' },
      abandon: { type: 'boolean', help: 'give up this step (the stage fails)' },
      step: { type: 'string', value: '<step>', help: 'the waiting step (default: the one that waits)' },
    },
    {
      description: 'Give exactly one of --task-id, --resubmit, --abandon.',
      examples: [
        'reelflow resolve reelflow-demo-k3j9x2ab --task-id cgt-2025-abc',
        'reelflow resolve reelflow-demo-k3j9x2ab --resubmit',
      ],
    },
  ),
  cmd(
    'rerun',
    '[<workflow-id>]',
    "start the pipeline again, reusing the earlier run's finished outputs (no paid task twice; --batch: a batch's failed ones)",
    'temporal',
    [0, 1],
    {
      batch: { type: 'string', value: '<id>', help: 'rerun the failed (and timed-out) pipelines of this batch' },
      yes: { type: 'boolean', help: 'with --batch: rerun them (without it: list them only)' },
      from: {
        type: 'string',
        value: '<step>',
        choices: RERUN_FROM,
        help: `redo from this step: ${RERUN_FROM.join(', ')} (default: the first that did not finish)`,
      },
      id: { type: 'string', value: '<id>', help: 'workflow id of the new pipeline (default reelflow-<name>-<random>)' },
      'task-queue': { type: 'string', value: '<queue>', help: "task queue (default: the earlier pipeline's)" },
      'run-id': {
        type: 'string',
        value: '<run-id>',
        help: "the earlier pipeline's run to reuse (default: its latest); one that continued as new stands for its chain's last run",
      },
    },
    {
      description:
        'Every step before --from must have finished; its outputs (Asset:// addresses, assets, the generation and erase tasks) are reused, with no vendor create. A generation or erase task the earlier run left running is adopted (polled, never created again), or the rerun is refused naming it. Refused when a reused URL has expired (the generated video: 24 h). With --batch, each failed pipeline without a rerun yet is rerun as <id>-rerun<n> in the same batch (so nothing is rerun twice); without --yes they are listed and nothing starts; exit code 1 when any rerun was refused or failed to start.',
      examples: [
        'reelflow rerun reelflow-demo-k3j9x2ab --from erase',
        'reelflow rerun reelflow-demo-k3j9x2ab --from archive',
        'reelflow rerun --batch launch-42 --yes',
      ],
    },
  ),
  cmd('list', '', 'list pipelines (Temporal visibility, newest first)', 'temporal', [0, 0], {
    status: {
      type: 'string',
      value: '<status>',
      choices: [...LIST_STATUSES, 'canceled'],
      help: `one of ${LIST_STATUSES.join(', ')}`,
    },
    stage: { type: 'string', value: '<stage>', choices: LIST_STAGES, help: `current stage: ${LIST_STAGES.join(', ')}` },
    waiting: {
      type: 'boolean',
      help: 'the pipelines waiting for an operator (--status waiting-operator), with the Web UI link of that list',
    },
    'vendor-task': { type: 'string', value: '<id>', help: 'pipelines that recorded this vendor task id' },
    limit: { type: 'string', value: '<n>', integer: true, help: 'at most n pipelines (default 50)' },
    query: { type: 'string', value: '<query>', help: 'extra visibility query, ANDed' },
    batch: { type: 'string', value: '<id>', help: 'the pipelines of this batch (all of them unless --limit)' },
    tenant: { type: 'string', value: '<tenant>', help: 'the pipelines of this tenant (ReelflowTenant)' },
    'task-queue': { type: 'string', value: '<queue>', help: 'the pipelines on this task queue' },
  }),
  cmd(
    'wait',
    '--batch <id>',
    'wait until every pipeline of a batch has ended, then summarize',
    'temporal',
    [0, 0],
    {
      batch: { type: 'string', value: '<id>', help: 'the batch id (required)' },
      expect: {
        type: 'string',
        value: '<n>',
        integer: true,
        help: 'wait until at least n pipelines are listed (visibility lags the starts; default 1)',
      },
      timeout: { type: 'string', value: '<seconds>', integer: true, help: 'give up after this long (exit 1)' },
      interval: { type: 'string', value: '<ms>', integer: true, help: 'between visibility queries (default 2000)' },
    },
    {
      description:
        'Exit code: 0 all completed, 1 any failed or timed out (or --timeout passed), 3 any cancelled or terminated.',
      examples: ['reelflow wait --batch launch-42 --expect 40'],
    },
  ),
  cmd(
    'schedule create',
    '<schedule-id> <file>',
    'start a pipeline on a schedule (Temporal Schedules)',
    'temporal',
    [2, 2],
    {
      cron: { type: 'string', value: '<expr>', help: 'cron expression (5-7 fields, or @daily, @hourly, …), in UTC' },
      every: { type: 'string', value: '<duration>', help: 'interval: 30s, 5m, 2h, 1d (at least 1s)' },
      overlap: {
        type: 'string',
        value: '<policy>',
        choices: OVERLAP_POLICIES,
        help: `when a run is due while the last one runs: ${OVERLAP_POLICIES.join(', ')} (default skip)`,
      },
      ...SIZE,
      ...TENANCY,
      'task-queue': START['task-queue'],
      'id-prefix': {
        type: 'string',
        value: '<prefix>',
        help: "each run's workflow id: <prefix>-<scheduled time> (default the schedule id)",
      },
    },
    {
      description: 'Give exactly one of --cron and --every. The definition is validated before anything is created.',
      examples: [
        'reelflow schedule create nightly-teaser examples/pipeline.json --cron "0 3 * * *"',
        'reelflow schedule create every-hour examples/pipeline.json --every 1h --overlap buffer-one',
      ],
    },
  ),
  cmd('schedule list', '', 'list the schedules that start pipelines', 'temporal', [0, 0]),
  cmd(
    'schedule update',
    '<schedule-id> [<file>]',
    'change a schedule in place: its definition, spec, overlap policy',
    'temporal',
    [1, 2],
    {
      cron: {
        type: 'string',
        value: '<expr>',
        help: 'new cron expression (5-7 fields, or @daily, @hourly, …), in UTC',
      },
      every: { type: 'string', value: '<duration>', help: 'new interval: 30s, 5m, 2h, 1d (at least 1s)' },
      overlap: {
        type: 'string',
        value: '<policy>',
        choices: OVERLAP_POLICIES,
        help: `new overlap policy: ${OVERLAP_POLICIES.join(', ')}`,
      },
      ...SIZE,
      'task-queue': { type: 'string', value: '<queue>', help: 'new task queue of the runs' },
      'id-prefix': { type: 'string', value: '<prefix>', help: "new first part of each run's workflow id" },
    },
    {
      description:
        'Give <file> (the new definition, validated first), and/or at most one of --cron and --every, --overlap, --task-queue, --id-prefix; the rest stays, paused or not. Runs already started go on with what they had.',
      examples: [
        'reelflow schedule update nightly-teaser --cron "0 4 * * *"',
        'reelflow schedule update nightly-teaser examples/pipeline.json --overlap buffer-one',
      ],
    },
  ),
  cmd(
    'schedule pause',
    '<schedule-id>',
    'pause a schedule: no run starts until it is unpaused',
    'temporal',
    [1, 1],
    {
      note: {
        type: 'string',
        value: '<text>',
        help: 'why, shown by `schedule list` and the Web UI (default "paused with reelflow")',
      },
    },
    { description: 'Runs already started go on; `reelflow schedule trigger` still starts one.' },
  ),
  cmd(
    'schedule unpause',
    '<schedule-id>',
    'resume a paused schedule (runs due while it was paused are not started)',
    'temporal',
    [1, 1],
    { note: { type: 'string', value: '<text>', help: 'replaces the pause note (default "unpaused with reelflow")' } },
  ),
  cmd(
    'schedule trigger',
    '<schedule-id>',
    "start a run now, paused or not, whatever the schedule's spec",
    'temporal',
    [1, 1],
    {
      overlap: {
        type: 'string',
        value: '<policy>',
        choices: OVERLAP_POLICIES,
        help: "for this run (default: the schedule's own; with skip, nothing starts while a run is still going)",
      },
    },
    {
      examples: [
        'reelflow schedule trigger nightly-teaser',
        'reelflow schedule trigger nightly-teaser --overlap allow-all',
      ],
    },
  ),
  cmd('schedule delete', '<schedule-id>', 'delete a schedule (runs already started go on)', 'temporal', [1, 1]),
  cmd(
    'usage',
    '',
    "show spend and paid creates by tenant and stage, from the tenants' ledgers",
    'temporal',
    [0, 0],
    {
      tenant: { type: 'string', value: '<tenant>', help: 'only this tenant' },
      since: {
        type: 'string',
        value: '<YYYY-MM-DD>',
        help: 'only budget periods that end on or after this date (default: every period still readable)',
      },
    },
    {
      description:
        'Amounts in the currency of REELFLOW_TENANTS_FILE, exact to the millionth. Reservations left unresolved (an ambiguous create its pipeline never settled) are listed on their own lines, never counted as spent.',
      examples: ['reelflow usage', 'reelflow usage --tenant acme --since 2026-11-01 --json'],
    },
  ),
  cmd(
    'budget set',
    '',
    "set a tenant's budget for its current period and the ones after it (no worker restart)",
    'temporal',
    [0, 0],
    {
      tenant: { type: 'string', value: '<tenant>', help: 'a tenant of REELFLOW_TENANTS_FILE (required)' },
      amount: {
        type: 'string',
        value: '<amount>',
        help: 'decimal amount in currency units, e.g. 500 or 0.35 (required)',
      },
      period: {
        type: 'string',
        value: '<period>',
        choices: ['day', 'month'],
        help: "checked against the tenant's configured period (default: that period)",
      },
      'task-queue': START['task-queue'],
    },
    {
      description:
        "Reads REELFLOW_TENANTS_FILE (the worker's). Pipelines waiting for this budget (waiting-budget) go on at once when it covers them.",
      examples: ['reelflow budget set --tenant acme --amount 750'],
    },
  ),
  cmd(
    'budget show',
    '',
    "show each tenant's budget for its current period: configured, in force, spent, reserved, remaining",
    'temporal',
    [0, 0],
    { tenant: { type: 'string', value: '<tenant>', help: 'only this tenant' } },
    { description: "Reads REELFLOW_TENANTS_FILE (the worker's)." },
  ),
  cmd(
    'archive get',
    '<workflow-id>',
    "download an archived file of a pipeline from the worker's archive server, checked against its sha256",
    'temporal',
    [1, 1],
    {
      name: {
        type: 'string',
        value: '<name>',
        help: 'which archived file, e.g. generated.mp4 (default: the last archived, the erased video when there is one)',
      },
      out: {
        type: 'string',
        value: '<path>',
        help: 'file to write, or a folder to write it in under its archived name (default: the current folder)',
      },
    },
    {
      description:
        "Needs REELFLOW_ARCHIVE_URL (the worker's archive server, e.g. http://worker:8090) and REELFLOW_ARCHIVE_TOKEN (the worker's). Waits for the pipeline to end, like result. The file is written only once its bytes and sha256 match the pipeline's result; --json prints {path, bytes, sha256}.",
      examples: [
        'reelflow archive get reelflow-demo-k3j9x2ab',
        'reelflow archive get reelflow-demo-k3j9x2ab --name generated.mp4 --out /tmp/clip.mp4 --json',
      ],
    },
  ),
  cmd(
    'setup',
    '',
    "register reelflow's search attributes on the namespace (idempotent)",
    'temporal',
    [0, 0],
    {
      wait: {
        type: 'string',
        value: '<seconds>',
        integer: true,
        help: 'keep retrying while the server is not up yet (default: no retry)',
      },
    },
    {
      description:
        'Needed once per namespace on a cluster of your own; the dev stack does it by itself. On Temporal Cloud use its console or API.',
      examples: ['reelflow setup', 'reelflow setup --namespace prod --wait 120'],
    },
  ),
  cmd(
    'doctor',
    '',
    'check, read-only, everything a pipeline needs before its first paid call',
    'temporal',
    [0, 0],
    {},
    {
      description:
        "Reads the worker's environment (REELFLOW_*, VENDOR_*, TEMPORAL_*) and checks: Temporal reachable, the namespace, the search attributes, a worker polling each queue, every profile's credentials and paths on each vendor interface (no paid call: a list, or a query of an unknown id), the callback receiver's health, the archive folder, the codec keys. Exit code 1 when a check failed; each ✗ says how to fix it.",
      examples: ['reelflow doctor', 'reelflow doctor --json'],
    },
  ),
  cmd(
    'worker',
    '',
    'run the worker: workflows and activities, until SIGINT/SIGTERM',
    'worker',
    [0, 0],
    {},
    {
      description:
        "Configured by the environment (TEMPORAL_*, VENDOR_*, REELFLOW_*; see docs/deploy.md). Runs `reelflow doctor`'s checks at start and logs each ✗ and refuses to start on one (REELFLOW_STRICT_START=0 starts anyway, warning). SIGINT or SIGTERM drains the running tasks, then exits.",
      examples: ['reelflow worker', 'REELFLOW_PROFILES=default,premium reelflow worker'],
    },
  ),
  cmd(
    'serve',
    '',
    'the HTTP API and live progress (SSE) for frontends and other languages (until Ctrl-C)',
    'temporal',
    [0, 0],
    {
      host: {
        type: 'string',
        value: '<ip>',
        help: 'interface to listen on (default $REELFLOW_GATEWAY_HOST or 127.0.0.1)',
      },
      port: {
        type: 'string',
        value: '<port>',
        help: 'port (default $REELFLOW_GATEWAY_PORT or 8080; 0: any free port)',
      },
    },
    {
      description:
        'A Temporal client only (never a worker). Bearer tokens from REELFLOW_GATEWAY_TOKENS_FILE or REELFLOW_GATEWAY_TOKENS, each mapped to a tenant or admin; see docs/api.md.',
      examples: ['REELFLOW_GATEWAY_TOKENS_FILE=gateway-tokens.json reelflow serve --port 8080'],
    },
  ),
  cmd(
    'codec-server',
    '',
    'decrypt payloads for the Web UI and the temporal CLI (until Ctrl-C)',
    'codec',
    [0, 0],
    {
      host: { type: 'string', value: '<ip>', help: 'interface to listen on (default 127.0.0.1)' },
      port: { type: 'string', value: '<port>', help: 'port (default 8888; 0: any free port)' },
      'cors-origin': {
        type: 'string',
        multiple: true,
        value: '<origin>',
        help: 'Web UI origin allowed to call it (repeatable; default http://localhost:8233 and http://127.0.0.1:8233)',
      },
      'allowed-host': {
        type: 'string',
        multiple: true,
        value: '<host[:port]>',
        help: 'Host header it answers besides the bound host (repeatable; also REELFLOW_CODEC_SERVER_HOSTS; required with --host 0.0.0.0)',
      },
    },
    {
      description:
        'POST /decode and /encode as the Web UI and `temporal --codec-endpoint` expect. With REELFLOW_CODEC_SERVER_TOKEN every request needs "Authorization: Bearer <token>"; without it, loopback only.',
      examples: [
        'REELFLOW_CODEC_KEYS=kid1:$(openssl rand -base64 32) reelflow codec-server',
        'temporal workflow show -w <id> --codec-endpoint http://127.0.0.1:8888',
      ],
    },
  ),
  cmd('validate', '<file>', 'check a pipeline definition (no server needed)', 'none', [1, 1], SIZE, {
    examples: ['reelflow validate examples/pipeline.json'],
  }),
  cmd(
    'completion',
    '<shell>',
    'print the shell completion script: bash or zsh',
    'none',
    [1, 1],
    {},
    {
      argChoices: ['bash', 'zsh'],
      description:
        "Generated from this synopsis: commands, subcommands, options and their values. Load it in the shell's startup file, or save it where the shell looks for completions.",
      examples: [
        "echo 'source <(reelflow completion bash)' >> ~/.bashrc",
        "echo 'source <(reelflow completion zsh)' >> ~/.zshrc   # after compinit",
      ],
    },
  ),
  cmd('groups list', '', 'list asset groups', 'vendor', [0, 0], {
    type: { type: 'string', value: '<type>', choices: ['AIGC', 'LivenessFace'], help: 'only groups of this type' },
  }),
  cmd('groups get', '<group-id>', 'show one asset group', 'vendor', [1, 1]),
  cmd('groups create', '<name>', 'create an asset group', 'vendor', [1, 1], {
    description: { type: 'string', value: '<text>', help: 'free text' },
  }),
  cmd('groups update', '<group-id>', 'rename an asset group or change its description', 'vendor', [1, 1], {
    name: { type: 'string', value: '<name>', help: 'new name' },
    description: { type: 'string', value: '<text>', help: 'new description' },
  }),
  cmd('groups delete', '<group-id>', 'delete an (empty) asset group', 'vendor', [1, 1]),
  cmd('assets list', '', 'list assets', 'vendor', [0, 0], {
    group: { type: 'string', multiple: true, value: '<group-id>', help: 'only assets of this group (repeatable)' },
    page: { type: 'string', value: '<n>', integer: true, help: 'page number (default 1)' },
    'page-size': { type: 'string', value: '<n>', integer: true, help: 'page size (default 20)' },
    all: { type: 'boolean', help: 'walk every page' },
  }),
  cmd('assets get', '<asset-id>', 'show one asset (its URL is signed, valid about 12 h)', 'vendor', [1, 1]),
  cmd('assets create', '', 'register an asset from a public URL (processed asynchronously)', 'vendor', [0, 0], {
    group: { type: 'string', value: '<group-id>', help: 'owning group (required)' },
    url: { type: 'string', value: '<url>', help: 'public http(s) URL (required)' },
    type: {
      type: 'string',
      value: '<type>',
      choices: [...ASSET_TYPES, 'image', 'video', 'audio'],
      help: 'Image, Video or Audio',
    },
    name: { type: 'string', value: '<name>', help: 'asset name' },
  }),
  cmd('assets update', '<asset-id>', 'rename an asset', 'vendor', [1, 1], {
    name: { type: 'string', value: '<name>', help: 'new name (required)' },
  }),
  cmd('assets delete', '<asset-id>', 'delete an asset', 'vendor', [1, 1]),
  cmd('review submit', '<url…>', 'submit media URLs for review (sync by default)', 'vendor', [1, MAX_REVIEW_BATCH], {
    async: { type: 'boolean', help: 'return the task id at once (then: reelflow review get <taskId>)' },
    type: {
      type: 'string',
      value: '<type>',
      choices: ASSET_TYPES,
      help: 'media type (default: from the URL extensions)',
    },
    group: { type: 'string', value: '<group-id>', help: 'asset group id' },
    'callback-url': { type: 'string', value: '<url>', help: 'public URL that receives the review result' },
  }),
  cmd('review get', '<task-id>', 'show a review task and its items', 'vendor', [1, 1]),
];

const GROUPS = ['schedule', 'archive', 'groups', 'assets', 'review', 'budget'];

export function findCommand(name: string): CommandSpec | undefined {
  return COMMANDS.find((c) => c.name === name);
}

export type ParsedCommandLine =
  | { kind: 'help'; command?: CommandSpec; group?: string }
  /** A bare `reelflow` or `reelflow <group>`: the usage goes to stderr, exit 2. */
  | { kind: 'usage'; group?: string }
  | { kind: 'version' }
  | {
      kind: 'command';
      command: CommandSpec;
      positionals: string[];
      values: Record<string, string | boolean | string[] | undefined>;
      json: boolean;
    };

function optionLabel(name: string, spec: OptionSpec): string {
  return `--${name}${spec.type === 'string' ? ` ${spec.value ?? '<value>'}` : ''}`;
}

/** Turns a parseArgs TypeError into a UsageError that names the option. */
function parseArgsError(err: unknown, command: CommandSpec, args: readonly string[]): UsageError {
  const message = err instanceof Error ? err.message : String(err);
  const code = (err as { code?: string }).code;
  const opt = /'(-{1,2}[^' ]+)/.exec(message)?.[1];
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && opt) {
    const names = Object.keys(command.options).map((o) => `--${o}`);
    return new UsageError(`unknown option ${opt} for "${command.name}"${didYouMean(opt, names)}`, opt, command.name);
  }
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && opt) {
    const name = opt.replace(/^-+/, '');
    const spec = command.options[name] ?? Object.entries(command.options).find(([, s]) => s.short === name)?.[1];
    if (spec?.type === 'boolean') return new UsageError(`option ${opt} takes no value`, opt, command.name);
    // parseArgs calls a value starting with "-" ambiguous: say what is wrong with it.
    const given = args[args.indexOf(opt) + 1];
    if (given?.startsWith('-') && spec) return dashValueError(opt, spec, given, command.name);
    return new UsageError(`option ${opt} needs a value${spec?.value ? ` ${spec.value}` : ''}`, opt, command.name);
  }
  return new UsageError(`${command.name}: ${message.replace(/\. To specify .*$/s, '')}`, opt, command.name);
}

/** `--limit -3`: a negative number is not a positive integer; anything else may be the next option. */
function dashValueError(opt: string, spec: OptionSpec, given: string, command: string): UsageError {
  if (spec.integer && /^-\d/.test(given)) {
    return new UsageError(`option ${opt}: "${given}" is not a positive integer`, opt, command);
  }
  return new UsageError(
    `option ${opt} needs a value${spec.value ? ` ${spec.value}` : ''}, not the option-like "${given}" (write ${opt}=${given} if that is the value)`,
    opt,
    command,
  );
}

/** `reelflow`, `--help`, `--version` and `help [command]`; undefined for anything else. */
function helpOrVersion(args: string[]): ParsedCommandLine | undefined {
  if (args.length === 0) return { kind: 'usage' };
  const first = args[0];
  if (first === '--help' || first === '-h') return { kind: 'help' };
  if (['--version', '-v', '-V', 'version'].includes(first)) return { kind: 'version' };
  if (first !== 'help') return undefined;
  const rest = args.slice(1).filter((a) => !a.startsWith('-'));
  if (rest.length === 0) return { kind: 'help' };
  const found = findCommand(rest.slice(0, 2).join(' ')) ?? findCommand(rest[0]);
  if (found) return { kind: 'help', command: found };
  if (GROUPS.includes(rest[0])) return { kind: 'help', group: rest[0] };
  throw new UsageError(`no help for unknown command "${rest.join(' ')}"`);
}

/** The command args[0] (and, for a group, args[1]) names, and the arguments after it; or the group's usage or help. */
function commandOf(args: string[]): { command: CommandSpec; rest: string[] } | ParsedCommandLine {
  const first = args[0];
  if (first.startsWith('-')) {
    throw new UsageError(`expected a command before ${first}`, first);
  }
  let name = first;
  let rest = args.slice(1);
  if (GROUPS.includes(first)) {
    const sub = rest[0];
    const subs = COMMANDS.filter((c) => c.name.startsWith(`${first} `)).map((c) => c.name.split(' ')[1]);
    if (sub === undefined) return { kind: 'usage', group: first };
    if (sub === '--help' || sub === '-h') return { kind: 'help', group: first };
    if (sub.startsWith('-'))
      throw new UsageError(`"${first}" needs a subcommand: ${subs.join(', ')}`, undefined, first);
    if (!subs.includes(sub)) {
      throw new UsageError(`unknown subcommand "${first} ${sub}"${didYouMean(sub, subs)}; one of ${subs.join(', ')}`);
    }
    name = `${first} ${sub}`;
    rest = rest.slice(1);
  }
  const command = findCommand(name);
  if (!command) {
    const names = [...new Set(COMMANDS.map((c) => c.name.split(' ')[0]))];
    throw new UsageError(`unknown command "${first}"${didYouMean(first, names)}`);
  }
  return { command, rest };
}

/** Each option's value: given (not empty, not the next option), one of its choices, a positive integer where it must be. */
function checkOptionValues(
  command: CommandSpec,
  values: Record<string, string | boolean | string[] | undefined>,
): void {
  for (const [key, spec] of Object.entries(command.options)) {
    const v = values[key];
    if (v === undefined) continue;
    for (const one of Array.isArray(v) ? v : [v]) {
      if (typeof one !== 'string') continue;
      const label = optionLabel(key, spec);
      if (one === '' || (one.startsWith('--') && spec.type === 'string')) {
        throw new UsageError(`option ${label} needs a value`, `--${key}`, command.name);
      }
      if (spec.choices && !spec.choices.includes(one)) {
        throw new UsageError(
          `option --${key}: "${one}" is not one of ${spec.choices.join(', ')}`,
          `--${key}`,
          command.name,
        );
      }
      if (spec.integer && !/^[1-9]\d*$/.test(one)) {
        throw new UsageError(`option --${key}: "${one}" is not a positive integer`, `--${key}`, command.name);
      }
    }
  }
}

function checkPositionals(command: CommandSpec, positionals: string[]): void {
  const { min, max, names } = command.positionals;
  if (positionals.length < min) {
    throw new UsageError(`"${command.name}" needs ${names}`, names, command.name);
  }
  if (positionals.length > max) {
    const extra = positionals.slice(max);
    throw new UsageError(
      `"${command.name}" takes ${max === 0 ? 'no arguments' : names}; unexpected ${extra.map((e) => JSON.stringify(e)).join(' ')}`,
      names || undefined,
      command.name,
    );
  }
  const [first] = positionals;
  if (command.argChoices && first !== undefined && !command.argChoices.includes(first)) {
    throw new UsageError(
      `${names}: "${first}" is not one of ${command.argChoices.join(', ')}${didYouMean(first, [...command.argChoices])}`,
      names,
      command.name,
    );
  }
}

/** Parses argv (without node and script). Throws UsageError. */
export function parseCommandLine(argv: readonly string[]): ParsedCommandLine {
  const args = [...argv];
  const early = helpOrVersion(args);
  if (early) return early;
  const resolved = commandOf(args);
  if (!('rest' in resolved)) return resolved;
  const { command, rest } = resolved;
  if (rest.includes('--help') || rest.includes('-h')) return { kind: 'help', command };

  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: rest,
      strict: true,
      allowPositionals: true,
      options: Object.fromEntries(
        Object.entries(command.options).map(([k, o]) => [
          k,
          { type: o.type, ...(o.short ? { short: o.short } : {}), ...(o.multiple ? { multiple: true } : {}) },
        ]),
      ),
    });
  } catch (err) {
    throw parseArgsError(err, command, rest);
  }
  const values = parsed.values as Record<string, string | boolean | string[] | undefined>;
  checkOptionValues(command, values);
  checkPositionals(command, parsed.positionals);
  return { kind: 'command', command, positionals: parsed.positionals, values, json: values.json === true };
}

/** Help for one command. */
export function commandHelp(c: CommandSpec): string {
  const opts = Object.entries(c.options).map(([k, o]) => {
    const label = `${o.short ? `-${o.short}, ` : '    '}${optionLabel(k, o)}${o.multiple ? ' …' : ''}`;
    return `  ${label.padEnd(34)} ${o.help}`;
  });
  const lines = [`usage: reelflow ${c.name}${c.args ? ` ${c.args}` : ''} [options]`, '', `${c.summary}.`];
  if (c.description) lines.push('', c.description);
  lines.push('', 'options:', ...opts);
  if (c.needs === 'temporal') {
    lines.push(
      '',
      'Temporal connection: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TEMPORAL_TLS*, TEMPORAL_PROFILE / temporal.toml.',
    );
  }
  if (c.needs === 'codec') {
    lines.push('', 'Keys: REELFLOW_CODEC_KEYS, REELFLOW_CODEC_KEY_ID; auth: REELFLOW_CODEC_SERVER_TOKEN.');
  }
  if (c.needs === 'vendor') {
    lines.push('', 'Vendor: VENDOR_BASE_URL, VENDOR_IDENTITY_URL and REELFLOW_PROFILE_<NAME>_ACCESS_TOKEN / _API_KEY.');
  }
  if (c.examples?.length) lines.push('', 'examples:', ...c.examples.map((e) => `  ${e}`));
  return `${lines.join('\n')}\n`;
}

/** The synopsis: every command on one line. */
export function mainHelp(group?: string): string {
  const shown = group ? COMMANDS.filter((c) => c.name.startsWith(`${group} `)) : COMMANDS;
  const width = Math.max(...shown.map((c) => `${c.name} ${c.args}`.length));
  const line = (c: CommandSpec) => `  reelflow ${`${c.name} ${c.args}`.padEnd(width)}  ${c.summary}`;
  if (group) return `usage:\n${shown.map(line).join('\n')}\n\nreelflow ${group} <subcommand> --help for its options.\n`;
  const section = (title: string, needs: Needs) => [`${title}:`, ...shown.filter((c) => c.needs === needs).map(line)];
  return [
    'reelflow: durable video pipelines (review → assets → generation → erase) on Temporal.',
    '',
    ...section('pipelines', 'temporal'),
    '',
    ...section('no server needed', 'none'),
    '',
    ...section('the worker', 'worker'),
    '',
    ...section('encrypted payloads', 'codec'),
    '',
    ...section('vendor', 'vendor'),
    '',
    'Every command takes --json (one JSON document on stdout) and --help.',
    'Exit codes: 0 ok, 1 failed, 2 usage or invalid definition (nothing done), 3 cancelled or terminated, 130 interrupted.',
    '',
  ].join('\n');
}
