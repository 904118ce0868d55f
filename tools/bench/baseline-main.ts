/**
 * The baseline's own process (so its memory and CPU are measured like a worker's):
 *
 *   node tools/bench/baseline-main.ts --emulator URL --definitions defs.json --out result.json
 *     --archive-dir DIR [--callbacks] [--timeout-ms MS]
 *
 * Credentials: BENCH_API_KEY / BENCH_ACCESS_TOKEN (default: the emulator's defaults).
 * Protocol on stdio: prints READY once set up; on a line GO runs every pipeline at once,
 * writes the result file and prints DONE; exits on EXIT, SIGTERM or stdin closing.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import type { PipelineDefinitionInput } from '../../src/definition/definition';
import { DEFAULT_ACCESS_TOKENS, DEFAULT_API_KEYS } from '../../src/emulator/options';
import { createVendorClient } from '../../src/vendor-api';
import { Hints, runBaselinePipeline, type BaselinePipelineResult } from './baseline';

export interface BaselineRunResult {
  startedAt: number;
  endedAt: number;
  pipelines: BaselinePipelineResult[];
  callbacksReceived: number;
}

/** Receives vendor callbacks at /cb/<index>/<step> and turns them into hints. */
function startReceiver(hints: Hints, counter: { n: number }): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    const m = /^\/cb\/(\d+)\/([\w.-]+)$/.exec(req.url ?? '');
    req.resume();
    req.on('end', () => {
      if (req.method !== 'POST' || !m) {
        res.writeHead(404).end();
        return;
      }
      counter.n += 1;
      hints.notify(`${m[1]}/${m[2]}`);
      res.writeHead(204).end();
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      emulator: { type: 'string' },
      definitions: { type: 'string' },
      out: { type: 'string' },
      'archive-dir': { type: 'string' },
      callbacks: { type: 'boolean', default: false },
      'timeout-ms': { type: 'string', default: '1800000' },
    },
    strict: true,
  });
  const { emulator, definitions, out } = values;
  const archiveDir = values['archive-dir'];
  if (!emulator || !definitions || !out || !archiveDir) {
    throw new Error(
      'usage: baseline-main --emulator URL --definitions FILE --out FILE --archive-dir DIR [--callbacks]',
    );
  }
  const defs = JSON.parse(readFileSync(definitions, 'utf8')) as PipelineDefinitionInput[];
  const vendor = createVendorClient({
    baseUrl: emulator,
    identityUrl: emulator,
    apiKey: process.env.BENCH_API_KEY ?? DEFAULT_API_KEYS[0],
    accessToken: process.env.BENCH_ACCESS_TOKEN ?? DEFAULT_ACCESS_TOKENS[0],
  });
  const hints = new Hints();
  const received = { n: 0 };
  const receiver = values.callbacks ? await startReceiver(hints, received) : undefined;
  const receiverUrl = receiver ? `http://127.0.0.1:${(receiver.address() as AddressInfo).port}` : '';

  const close = async () => {
    receiver?.close();
    receiver?.closeAllConnections();
    await vendor.close();
  };
  let finished = false;
  const exit = async (code: number) => {
    await close().catch(() => undefined);
    process.exit(code);
  };
  process.on('SIGTERM', () => void exit(finished ? 0 : 1));

  const lines = createInterface({ input: process.stdin });
  let started = false;
  lines.on('close', () => void exit(finished ? 0 : 1));
  lines.on('line', (line) => {
    if (line.trim() === 'EXIT') void exit(finished ? 0 : 1);
    if (line.trim() !== 'GO' || started) return;
    started = true;
    const startedAt = Date.now();
    const deadline = startedAt + Number(values['timeout-ms']);
    const deps = {
      vendor,
      archiveDir,
      deadline,
      ...(receiver
        ? { callbacks: { hints, urlFor: (i: number, step: string) => `${receiverUrl}/cb/${i}/${step}` } }
        : {}),
    };
    void Promise.all(defs.map((def, i) => runBaselinePipeline(def, i, deps))).then((pipelines) => {
      const result: BaselineRunResult = { startedAt, endedAt: Date.now(), pipelines, callbacksReceived: received.n };
      writeFileSync(out, JSON.stringify(result));
      finished = true;
      process.stdout.write(`DONE ${pipelines.filter((p) => p.ok).length}/${pipelines.length} ok\n`);
    });
  });
  process.stdout.write(`READY ${defs.length} pipelines${receiver ? `, callbacks at ${receiverUrl}` : ''}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`baseline: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(2);
});
