#!/usr/bin/env node
/**
 * `reelflow`: start, watch and operate pipelines; check definitions; call the vendor.
 * See spec.ts for the commands and `reelflow --help` for the synopsis; each command
 * is a module of commands/.
 *
 * runCli() is the whole program with injectable streams and environment, so tests run
 * it in-process; the bottom of this file wires it to the real process.
 */
import { nodeSupportWarning } from '../../config/node-support';
import { startTracing } from '../../telemetry/tracing';
import { reportError } from './errors';
import { CommandContext, EXIT, type CliIo } from './output';
import { Session, type CommandFn } from './session';
import { commandHelp, mainHelp, parseCommandLine, type CommandSpec } from './spec';
import { archiveGet } from './commands/archive-get';
import { cancel } from './commands/cancel';
import { codecServer } from './commands/codec-server';
import { completion } from './commands/completion';
import { doctor } from './commands/doctor';
import { list } from './commands/list';
import { rerun } from './commands/rerun';
import { resolve } from './commands/resolve';
import { result } from './commands/result';
import { run } from './commands/run';
import { scheduleCreate } from './commands/schedule-create';
import { scheduleDelete } from './commands/schedule-delete';
import { scheduleList } from './commands/schedule-list';
import { budgetSet } from './commands/budget-set';
import { budgetShow } from './commands/budget-show';
import { usage } from './commands/usage';
import { schedulePause } from './commands/schedule-pause';
import { scheduleTrigger } from './commands/schedule-trigger';
import { scheduleUnpause } from './commands/schedule-unpause';
import { scheduleUpdate } from './commands/schedule-update';
import { serve } from './commands/serve';
import { setup } from './commands/setup';
import { start } from './commands/start';
import { status } from './commands/status';
import { validate } from './commands/validate';
import { wait } from './commands/wait';
import { worker } from './commands/worker';
import { runVendorCommand } from './commands/vendor';

export type { CliIo } from './output';

const VERSION = '0.2.0';

const PIPELINE_COMMANDS: Record<string, CommandFn> = {
  validate,
  start,
  run,
  status,
  result,
  cancel,
  resolve,
  rerun,
  setup,
  doctor,
  list,
  wait,
  'schedule create': scheduleCreate,
  'schedule list': scheduleList,
  'schedule update': scheduleUpdate,
  'schedule pause': schedulePause,
  'schedule unpause': scheduleUnpause,
  'schedule trigger': scheduleTrigger,
  'schedule delete': scheduleDelete,
  usage,
  'budget set': budgetSet,
  'budget show': budgetShow,
  'archive get': archiveGet,
  'codec-server': codecServer,
  serve,
  worker,
  completion,
};

/** The whole CLI. Resolves with the exit code; never throws. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let command: CommandSpec | undefined;
  let json = argv.includes('--json');
  try {
    const parsed = parseCommandLine(argv);
    if (parsed.kind === 'help') {
      io.stdout.write(parsed.command ? commandHelp(parsed.command) : mainHelp(parsed.group));
      return EXIT.ok;
    }
    if (parsed.kind === 'usage') {
      io.stderr.write(mainHelp(parsed.group));
      return EXIT.usage;
    }
    if (parsed.kind === 'version') {
      io.stdout.write(`reelflow ${VERSION}\n`);
      return EXIT.ok;
    }
    command = parsed.command;
    json = parsed.json;
    const ctx = new CommandContext(command.name, parsed.positionals, parsed.values, io);
    if (command.needs === 'vendor') return await runVendorCommand(ctx);
    const fn = PIPELINE_COMMANDS[command.name];
    const session = new Session(ctx);
    try {
      return await fn(ctx, session);
    } finally {
      await session.close();
    }
  } catch (err) {
    const report = reportError(err, command);
    for (const line of report.lines) io.stderr.write(`${line}\n`);
    if (json) io.stdout.write(`${JSON.stringify({ error: report.doc }, null, 2)}\n`);
    return report.code;
  }
}

/** Wires runCli to the process: Ctrl-C stops following (twice: exit at once). */
export async function main(argv = process.argv.slice(2)): Promise<number> {
  const abort = new AbortController();
  const onSigint = () => {
    if (abort.signal.aborted) process.exit(EXIT.interrupted);
    abort.abort(new Error('interrupted'));
  };
  process.on('SIGINT', onSigint);
  // With OTEL_EXPORTER_OTLP_ENDPOINT: starts and vendor calls are spans (flushed before exit).
  const tracing = await startTracing(process.env, 'reelflow-cli');
  try {
    return await runCli(argv, {
      stdout: process.stdout,
      stderr: process.stderr,
      stdin: process.stdin,
      env: process.env,
      cwd: process.cwd(),
      signal: abort.signal,
    });
  } finally {
    process.off('SIGINT', onSigint);
    await tracing?.shutdown();
  }
}

if (require.main === module) {
  const oldNode = nodeSupportWarning();
  if (oldNode) process.stderr.write(`reelflow: warning: ${oldNode}\n`);
  // `reelflow list | head`: a closed pipe ends the output quietly.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EPIPE') process.exit(process.exitCode ?? EXIT.ok);
      throw err;
    });
  }
  main().then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      process.stderr.write(`reelflow: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = EXIT.failed;
    },
  );
}
