/**
 * `reelflow archive get <workflow-id> [--name <name>] [--out <path>]`: downloads an archived
 * file of a completed pipeline from the worker's archive server (REELFLOW_ARCHIVE_URL,
 * REELFLOW_ARCHIVE_TOKEN) and checks its bytes and sha256 against the pipeline's result
 * (docs/cli.md "Archived files").
 */
import { EXIT } from '../output';
import type { CommandFn } from '../session';
import { ArchiveFetchError, fetchArchivedFile } from '../../client/archived-file';

const URL_VARIABLE = 'REELFLOW_ARCHIVE_URL';
const TOKEN_VARIABLE = 'REELFLOW_ARCHIVE_TOKEN';

/** A variable the command needs, or an error naming it (exit 2, nothing done). */
function required(env: NodeJS.ProcessEnv, variable: string, what: string): string {
  const value = env[variable]?.trim();
  if (value) return value;
  throw new ArchiveFetchError(`${variable} is not set: ${what}`, 'config', variable);
}

/** The library's option names, as the command's variables and options. */
function inCliTerms(err: unknown): unknown {
  if (!(err instanceof ArchiveFetchError) || err.reason !== 'config') return err;
  const as = { archiveUrl: URL_VARIABLE, token: TOKEN_VARIABLE, out: '--out' }[err.option ?? ''];
  return as ? new ArchiveFetchError(err.message.replace(err.option!, as), 'config', as) : err;
}

export const archiveGet: CommandFn = async (ctx, session) => {
  const workflowId = ctx.positionals[0];
  const { env } = ctx.io;
  const archiveUrl = required(
    env,
    URL_VARIABLE,
    "the base URL of the worker's archive server, e.g. http://worker:8090",
  );
  const token = required(env, TOKEN_VARIABLE, "the worker's archive token");
  const name = ctx.str('name');
  const fetched = await fetchArchivedFile(await session.client(), workflowId, {
    archiveUrl,
    token,
    out: ctx.str('out') ?? ctx.io.cwd,
    ...(name !== undefined ? { name } : {}),
    ...(ctx.io.signal ? { signal: ctx.io.signal } : {}),
  }).catch((err: unknown) => {
    throw inCliTerms(err);
  });
  ctx.emit({ path: fetched.path, bytes: fetched.bytes, sha256: fetched.sha256 }, () => [
    `${fetched.path}  ${fetched.bytes} bytes  sha256 ${fetched.sha256}`,
  ]);
  return EXIT.ok;
};
