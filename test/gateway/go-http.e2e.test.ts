/**
 * Another language over HTTP alone: examples/go-http (Go's net/http, no Temporal SDK) starts a
 * pipeline through the gateway, follows its event stream to the end and checks the result.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { buildGoClient } from '../other-languages/go-client';
import { quickDefinition, startGatewayFixture, type GatewayFixture } from '../support/gateway';

const EXAMPLE = { dir: path.resolve(__dirname, '../../examples/go-http'), name: 'reelflow-go-http' };

let f: GatewayFixture;
let bin: string;
beforeAll(async () => {
  bin = await buildGoClient(process.env, (l) => process.stderr.write(`${l}\n`), EXAMPLE);
  f = await startGatewayFixture();
}, 600_000);
afterAll(() => f?.close());

test('the Go program starts a pipeline, follows its stream to the end, and the result agrees', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'reelflow-go-http-'));
  const file = path.join(dir, 'definition.json');
  writeFileSync(file, JSON.stringify(quickDefinition()));
  const env = { PATH: process.env.PATH, REELFLOW_URL: f.gw.url, REELFLOW_TOKEN: f.tokens.a };
  const { stdout } = await promisify(execFile)(bin, [file, 'go-order-1'], { env, timeout: 120_000 });
  const out = JSON.parse(stdout) as {
    pipelineId: string;
    created: boolean;
    events: number;
    streamEnd: string;
    resultStatus: string;
  };
  expect(out).toMatchObject({ created: true, streamEnd: 'completed', resultStatus: 'completed' });
  expect(out.pipelineId).toBe(`reelflow:${f.tenants.a}:go-order-1`);
  expect(out.events).toBeGreaterThanOrEqual(2);
  // The same key again: the same pipeline, not a second one.
  const again = JSON.parse(
    (await promisify(execFile)(bin, [file, 'go-order-1'], { env, timeout: 120_000 })).stdout,
  ) as {
    pipelineId: string;
    created: boolean;
  };
  expect(again).toMatchObject({ pipelineId: out.pipelineId, created: false });
});
