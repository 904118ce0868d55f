/**
 * An archived file of a completed pipeline (docs/api.md, "Routes"): a file in an
 * object store answers a redirect to a GET presigned with the gateway's own S3 credentials;
 * a file on a worker's disk is streamed through from that worker's archive server
 * (REELFLOW_ARCHIVE_URL and REELFLOW_ARCHIVE_TOKEN), whose token never leaves the gateway.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { Readable } from 'node:stream';
import { request } from 'undici';
import { archiveBaseUrl, archiveHttpPath, archiveSegmentsOf } from '../../contract/archive-path';
import type { ArchivedFile } from '../../contract/messages';
import { createS3Client } from '../../config/object-store';
import { ArchiveFetchError, pickArchivedFile } from '../client/archived-file';
import { presignedGet } from '../client/archived-object';
import { pipelineResult } from '../client/pipeline-client';
import type { ArchiveAccess, GatewayDeps, GatewayEnv } from './context';
import { ownedPipeline } from './access';
import { ProblemError } from './problem';
import * as R from './schemas';

export function archiveRoutes(app: OpenAPIHono<GatewayEnv>, deps: GatewayDeps): void {
  app.openapi(R.archivedFileRoute, async (c) => {
    const { id } = c.req.valid('param');
    const { name } = c.req.valid('query');
    const d = await ownedPipeline(deps.client, c.get('caller'), id);
    if (d.status.name !== 'COMPLETED') throw new ProblemError(409, 'conflict', `pipeline ${id} has not completed`);
    let file;
    try {
      file = pickArchivedFile(await pipelineResult(deps.client, id), name);
    } catch (err) {
      if (err instanceof ArchiveFetchError) throw new ProblemError(409, 'conflict', err.message);
      throw err;
    }
    const presigned = await presign(deps.archive, file, id);
    if (presigned) return c.redirect(presigned, 302);
    const base = deps.archive?.url ? archiveBaseUrl(deps.archive.url) : undefined;
    const segments = archiveSegmentsOf(file);
    if (!base || !deps.archive?.token || !segments) {
      throw new ProblemError(
        503,
        'unavailable',
        'no archive server configured (REELFLOW_ARCHIVE_URL, REELFLOW_ARCHIVE_TOKEN)',
      );
    }
    const res = await request(`${base}${archiveHttpPath(segments)}`, {
      headers: { authorization: `Bearer ${deps.archive.token}` },
    });
    if (res.statusCode !== 200) {
      await res.body.dump();
      throw new ProblemError(502, 'unavailable', `the archive server answered HTTP ${res.statusCode}`);
    }
    const headers: Record<string, string> = {
      'content-type': String(res.headers['content-type'] ?? 'application/octet-stream'),
      'content-disposition': `attachment; filename="${segments[2]}"`,
      'x-checksum-sha256': file.sha256,
    };
    if (res.headers['content-length']) headers['content-length'] = String(res.headers['content-length']);
    return new Response(Readable.toWeb(res.body) as ReadableStream, { status: 200, headers });
  });
}

/** The redirect target for a file in an object store; undefined for a file on a worker's disk. */
async function presign(access: ArchiveAccess | undefined, file: ArchivedFile, id: string) {
  if (access?.presign) return access.presign(file, id);
  if (file.bucket === undefined || file.key === undefined) return undefined;
  const s3 = typeof access?.s3 === 'function' ? access.s3() : (access?.s3 ?? createS3Client(process.env));
  try {
    return await presignedGet(file.bucket, file.key, s3);
  } catch (err) {
    // The cause names what is missing (credentials, region), never a secret.
    if (err instanceof ArchiveFetchError) throw new ProblemError(503, 'unavailable', err.message);
    throw err;
  }
}
