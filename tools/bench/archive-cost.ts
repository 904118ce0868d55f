/**
 * What the archive step costs, per backend (docs/benchmarks.md "Archive cost"):
 * `npx tsx tools/bench/archive-cost.ts [--mb 100] [--runs 10] [--parallel 10]`.
 *
 * The activity the worker runs (archiveOutput, src/activities/archive.ts) in the SDK's
 * activity harness, in this process, so its CPU and RSS are the archive's alone; the file
 * comes from a plain HTTP server in a child process (a CDN's role: the emulator's signed
 * URLs add nothing to the cost) and goes to the local folder, then to versitygw (the tests'
 * S3-compatible server, its own process). Reports per backend the step's p50 and p95 over
 * `--runs` sequential archives, CPU milliseconds per MB, and this process's peak RSS while
 * `--parallel` files are archived at once, beside its RSS before.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { parseArgs } from 'node:util';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createArchiveActivities, type ArchiveActivitiesOptions } from '../../src/activities/archive';
import { freePort } from '../devstack/dev-server';
import { startObjectStore, testS3Client } from '../devstack/object-store';

const MB = 2 ** 20;

/** A file of `mb` random MiB, written in 1 MiB chunks (never held whole). */
async function writeFile(file: string, mb: number): Promise<void> {
  const out = createWriteStream(file);
  for (let i = 0; i < mb; i++) if (!out.write(randomBytes(MB))) await once(out, 'drain');
  out.end();
  await once(out, 'finish');
}

/** A static file server in its own process: GET /<name> streams <dir>/<name> with its length. */
async function serveFolder(dir: string): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const code = `
    const http = require('node:http'), fs = require('node:fs'), path = require('node:path');
    http.createServer((req, res) => {
      const file = path.join(${JSON.stringify(dir)}, path.basename(req.url));
      fs.stat(file, (err, st) => {
        if (err) return res.writeHead(404).end();
        res.writeHead(200, { 'content-length': st.size, 'content-type': 'video/mp4' });
        fs.createReadStream(file).pipe(res);
      });
    }).listen(${port}, '127.0.0.1', () => console.log('ready'));`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  await once(child.stdout, 'data');
  return { url: `http://127.0.0.1:${port}`, child };
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];

interface Figures {
  backend: string;
  p50: number;
  p95: number;
  cpuMsPerMb: number;
  rssBeforeMb: number;
  rssPeakMb: number;
}

/** `runs` archives one after the other, then `parallel` at once with RSS sampled every 50 ms. */
async function measure(
  backend: string,
  opts: ArchiveActivitiesOptions,
  fileUrl: string,
  a: { runs: number; parallel: number; mb: number },
): Promise<Figures> {
  const { archiveOutput } = createArchiveActivities({ ...opts, allowPrivate: true, maxBytes: 2 ** 40 });
  let n = 0;
  // One environment per archive: each has its own cancellation signal, as each activity does.
  const one = () =>
    new MockActivityEnvironment().run(archiveOutput, {
      pipelineId: `bench-${backend}`,
      taskId: `t-${n++}`,
      name: 'v.mp4',
      url: fileUrl,
    });
  await one(); // warm: connections, the SDK's first load
  const walls: number[] = [];
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < a.runs; i++) {
    const t0 = performance.now();
    await one();
    walls.push(performance.now() - t0);
  }
  const cpu = process.cpuUsage(cpu0);
  globalThis.gc?.();
  const rssBefore = process.memoryUsage().rss;
  let peak = rssBefore;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
  await Promise.all(Array.from({ length: a.parallel }, one));
  clearInterval(sampler);
  walls.sort((x, y) => x - y);
  return {
    backend,
    p50: percentile(walls, 0.5) / 1000,
    p95: percentile(walls, 0.95) / 1000,
    cpuMsPerMb: (cpu.user + cpu.system) / 1000 / (a.runs * a.mb),
    rssBeforeMb: rssBefore / MB,
    rssPeakMb: peak / MB,
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      mb: { type: 'string', default: '100' },
      runs: { type: 'string', default: '10' },
      parallel: { type: 'string', default: '10' },
    },
  });
  const a = { mb: Number(values.mb), runs: Number(values.runs), parallel: Number(values.parallel) };
  const dir = mkdtempSync(path.join(os.tmpdir(), 'reelflow-archive-bench-'));
  await writeFile(path.join(dir, 'v.mp4'), a.mb);
  const files = await serveFolder(dir);
  const store = await startObjectStore({ dataDir: path.join(dir, 's3'), buckets: ['bench'] });
  if (!store) throw new Error('no versitygw: build it with Go (tools/devstack/object-store.ts)');
  const client = testS3Client(store);
  try {
    const fileUrl = `${files.url}/v.mp4`;
    const results = [
      await measure('local', { archiveRoot: path.join(dir, 'archive') }, fileUrl, a),
      await measure('s3', { archiveRoot: dir, store: { client, bucket: 'bench', prefix: 'archive' } }, fileUrl, a),
    ];
    console.log(JSON.stringify({ ...a, node: process.version, cores: os.availableParallelism(), results }, null, 2));
  } finally {
    client.destroy();
    files.child.kill();
    await store.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
