/** In-process CLI runs with captured output (no process spawn, no mock of Temporal). */
import { Readable } from 'node:stream';
import path from 'node:path';
import { runCli, type CliIo } from '../../src/starters/cli/main';
import { until, type PollOptions } from './poll';

export const ROOT = path.resolve(__dirname, '../..');

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON (for --json runs). */
  json<T = Record<string, any>>(): T;
}

export async function cli(
  argv: string[],
  opts: { env?: NodeJS.ProcessEnv; stdin?: string; tty?: boolean; stderrTty?: boolean; signal?: AbortSignal } = {},
): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: { write: (s: string) => (stdout += s), isTTY: opts.tty ?? false, columns: 200 },
    stderr: { write: (s: string) => (stderr += s), isTTY: opts.stderrTty ?? false },
    stdin: Readable.from(opts.stdin !== undefined ? [opts.stdin] : []),
    env: opts.env ?? process.env,
    cwd: ROOT,
    ...(opts.signal ? { signal: opts.signal } : {}),
  };
  const code = await runCli(argv, io);
  return {
    code,
    stdout,
    stderr,
    json: () => JSON.parse(stdout),
  };
}

/**
 * Runs `reelflow <argv>` every 500 ms until a run satisfies `ok`, and returns that run:
 * visibility is eventually consistent, and so is a status before the first activity. On
 * timeout (default 30 s) the error shows the last run's output.
 */
export function cliUntil(
  argv: string[],
  ok: (r: CliRun) => boolean,
  { timeoutMs = 30_000 }: Pick<PollOptions, 'timeoutMs'> = {},
): Promise<CliRun> {
  let last: CliRun | undefined;
  return until(
    () => `reelflow ${argv.join(' ')} to match; last output: ${last?.stdout}${last?.stderr}`,
    async () => {
      last = await cli(argv);
      return ok(last) && last;
    },
    { timeoutMs, everyMs: 500 },
  );
}
