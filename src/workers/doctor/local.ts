/**
 * Local preflight: the callback receiver's public URL answers its health path, the
 * archive folder is writable and has room for one largest file (or, with
 * REELFLOW_ARCHIVE_STORE, the object store's bucket answers: ./object-store.ts), the archive server takes
 * the token (when REELFLOW_ARCHIVE_URL is set), and the codec keys parse.
 */
import { constants } from 'node:fs';
import { access, statfs } from 'node:fs/promises';
import path from 'node:path';
import { request } from 'undici';
import { loadCodecKeys } from '../../codec/keys';
import { ARCHIVE_HTTP_PREFIX, archiveBaseUrl } from '../../contract/archive-path';
import type { Env } from '../../vendor-api/config';
import type { WorkerConfig } from '../config';
import { fail, guarded, pass, type CheckResult } from './check';
import { objectStoreCheck } from './object-store';

/** The receiver's health path (src/callbacks/receiver.ts). */
const HEALTH_PATH = '/healthz';

async function callbackCheck(config: WorkerConfig): Promise<CheckResult> {
  const title = 'callback receiver';
  if (!config.callbackBaseUrl) return pass('callbacks', title, 'off (REELFLOW_CALLBACK_BASE_URL unset: polling only)');
  const url = `${config.callbackBaseUrl}${HEALTH_PATH}`;
  const res = await request(url, { method: 'GET', headersTimeout: 5_000, bodyTimeout: 5_000 });
  await res.body.dump();
  if (res.statusCode === 200) return pass('callbacks', title, `${url} answered 200`);
  return fail(
    'callbacks',
    title,
    `${url} answered HTTP ${res.statusCode}`,
    'REELFLOW_CALLBACK_BASE_URL must be the public address of the receiver (its GET /healthz answers 200)',
  );
}

/**
 * The archive server as a backend reaches it: REELFLOW_ARCHIVE_URL answers `GET /archive`
 * with 204 for REELFLOW_ARCHIVE_TOKEN (src/workers/archive-server.ts). Checked only when
 * the URL is set: the worker itself does not need it.
 */
async function archiveServerCheck(config: WorkerConfig, env: Env): Promise<CheckResult> {
  const id = 'archive.server';
  const title = 'archive server';
  const served = config.archiveServer ? `served on ${config.archiveServer.host}:${config.archiveServer.port}` : '';
  const rawUrl = env.REELFLOW_ARCHIVE_URL?.trim();
  if (!rawUrl) return pass(id, title, served ? `${served} (REELFLOW_ARCHIVE_URL unset: not checked)` : 'off');
  const base = archiveBaseUrl(rawUrl);
  if (!base) return fail(id, title, 'REELFLOW_ARCHIVE_URL is not an http(s) URL', ARCHIVE_URL_FIX);
  if (!config.archiveToken) {
    return fail(id, title, 'REELFLOW_ARCHIVE_URL is set, REELFLOW_ARCHIVE_TOKEN is not', 'set REELFLOW_ARCHIVE_TOKEN');
  }
  const url = `${base}${ARCHIVE_HTTP_PREFIX}`;
  const res = await request(url, {
    method: 'GET',
    headers: { authorization: `Bearer ${config.archiveToken}` },
    headersTimeout: 5_000,
    bodyTimeout: 5_000,
  });
  await res.body.dump();
  if (res.statusCode === 204) return pass(id, title, `${url} accepts the token`);
  if (res.statusCode === 401) {
    return fail(id, title, `${url} refused the token (401)`, "REELFLOW_ARCHIVE_TOKEN must be the worker's");
  }
  return fail(id, title, `${url} answered HTTP ${res.statusCode}`, ARCHIVE_URL_FIX);
}

const ARCHIVE_URL_FIX =
  "REELFLOW_ARCHIVE_URL must be the base address of a worker's archive server (REELFLOW_ARCHIVE_PORT), e.g. http://worker:8090";

/** The folder itself, or its nearest existing parent (the worker creates the rest). */
async function nearestExisting(dir: string): Promise<string> {
  for (let d = dir; ; d = path.dirname(d)) {
    try {
      await access(d, constants.F_OK);
      return d;
    } catch {
      if (path.dirname(d) === d) return d;
    }
  }
}

async function archiveCheck(config: WorkerConfig): Promise<CheckResult> {
  const title = 'archive folder';
  const dir = await nearestExisting(config.archiveRoot);
  const fix = `REELFLOW_ARCHIVE_DIR (${config.archiveRoot}) must be a folder the worker may write, with room`;
  try {
    await access(dir, constants.W_OK);
  } catch {
    return fail('archive', title, `${dir} is not writable`, fix);
  }
  const fs = await statfs(dir);
  const free = fs.bavail * fs.bsize;
  const gib = (n: number) => `${(n / 2 ** 30).toFixed(1)} GiB`;
  if (free < config.archiveMaxBytes) {
    return fail('archive', title, `${gib(free)} free, below one largest file (${gib(config.archiveMaxBytes)})`, fix);
  }
  return pass('archive', title, `${config.archiveRoot} writable, ${gib(free)} free`);
}

function codecCheck(env: Env): CheckResult {
  const keys = loadCodecKeys(env);
  if (!keys) return pass('codec', 'codec keys', 'off (REELFLOW_CODEC_KEYS unset)');
  return pass('codec', 'codec keys', `${keys.keyIds.length} key(s), encrypting with ${keys.currentKeyId}`);
}

export async function localChecks(config: WorkerConfig, env: Env): Promise<CheckResult[]> {
  const results = await Promise.all([
    guarded('callbacks', 'callback receiver', 'start the receiver, or fix REELFLOW_CALLBACK_BASE_URL', () =>
      callbackCheck(config),
    ),
    config.archiveStore
      ? guarded('archive.store', 'archive object store', 'fix REELFLOW_ARCHIVE_STORE and the AWS_* variables', () =>
          objectStoreCheck(config, env),
        )
      : guarded('archive', 'archive folder', 'fix REELFLOW_ARCHIVE_DIR', () => archiveCheck(config)),
    guarded('archive.server', 'archive server', ARCHIVE_URL_FIX, () => archiveServerCheck(config, env)),
    guarded('codec', 'codec keys', 'fix REELFLOW_CODEC_KEYS / REELFLOW_CODEC_KEY_ID as the message says', () =>
      Promise.resolve(codecCheck(env)),
    ),
  ]);
  return results.flat();
}
