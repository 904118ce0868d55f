/**
 * `reelflow archive get <workflow-id> [--name <name>] [--out <path>]`: downloads an archived
 * file of a completed pipeline and checks its bytes and sha256 against the pipeline's result
 * (docs/cli.md "Archived files"): from the object store by a GET presigned with this
 * process's AWS credentials (REELFLOW_ARCHIVE_STORE; no worker needed), or from the worker's
 * archive server (REELFLOW_ARCHIVE_URL, REELFLOW_ARCHIVE_TOKEN) for a file on its disk.
 */
import { createS3Client } from '../../../config/object-store';
import { EXIT } from '../output';
import type { CommandFn } from '../session';
import { ArchiveFetchError, fetchArchivedFile } from '../../client/archived-file';

const URL_VARIABLE = 'REELFLOW_ARCHIVE_URL';
const TOKEN_VARIABLE = 'REELFLOW_ARCHIVE_TOKEN';

/** What a variable the command needs but lacks means (exit 2, nothing done). */
const MISSING: Record<string, string> = {
  [URL_VARIABLE]:
    "the base URL of the worker's archive server, e.g. http://worker:8090 (the file is on a worker's disk)",
  [TOKEN_VARIABLE]: "the worker's archive token (the file is on a worker's disk)",
};

/** The library's option names, as the command's variables and options; an unset variable says so. */
function inCliTerms(err: unknown, env: NodeJS.ProcessEnv): unknown {
  if (!(err instanceof ArchiveFetchError) || err.reason !== 'config') return err;
  const as = { archiveUrl: URL_VARIABLE, token: TOKEN_VARIABLE, out: '--out' }[err.option ?? ''];
  if (!as) return err;
  if (MISSING[as] && !env[as]?.trim()) return new ArchiveFetchError(`${as} is not set: ${MISSING[as]}`, 'config', as);
  return new ArchiveFetchError(err.message.replace(err.option!, as), 'config', as);
}

export const archiveGet: CommandFn = async (ctx, session) => {
  const workflowId = ctx.positionals[0];
  const { env } = ctx.io;
  const archiveUrl = env[URL_VARIABLE]?.trim();
  const token = env[TOKEN_VARIABLE]?.trim();
  const name = ctx.str('name');
  const fetched = await fetchArchivedFile(await session.client(), workflowId, {
    ...(archiveUrl ? { archiveUrl } : {}),
    ...(token ? { token } : {}),
    s3: () => createS3Client(env),
    out: ctx.str('out') ?? ctx.io.cwd,
    ...(name !== undefined ? { name } : {}),
    ...(ctx.io.signal ? { signal: ctx.io.signal } : {}),
  }).catch((err: unknown) => {
    throw inCliTerms(err, env);
  });
  ctx.emit({ path: fetched.path, bytes: fetched.bytes, sha256: fetched.sha256 }, () => [
    `${fetched.path}  ${fetched.bytes} bytes  sha256 ${fetched.sha256}`,
  ]);
  return EXIT.ok;
};
