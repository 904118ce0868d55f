/**
 * docs/api.md's curl examples hold: every ```sh block of its "Examples" section, run in order in
 * one bash (set -euo pipefail) against a real gateway, with the variables the page names.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { quickDefinition, startGatewayFixture, type GatewayFixture } from '../support/gateway';

let f: GatewayFixture;
beforeAll(async () => {
  f = await startGatewayFixture();
});
afterAll(() => f?.close());

function examples(): string[] {
  const page = readFileSync(path.resolve(__dirname, '../../docs/api.md'), 'utf8');
  const section = page.split(/^## Examples$/m)[1]?.split(/^## /m)[0] ?? '';
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]);
}

test('every curl example of docs/api.md runs as written', async () => {
  const blocks = examples();
  expect(blocks.length).toBeGreaterThanOrEqual(4);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'reelflow-api-docs-'));
  writeFileSync(path.join(dir, 'definition.json'), JSON.stringify(quickDefinition()));
  const script = ['set -euo pipefail', ...blocks].join('\n');
  const { stdout } = await promisify(execFile)('bash', ['-c', script], {
    cwd: dir,
    env: {
      PATH: process.env.PATH,
      REELFLOW_URL: f.gw.url,
      TOKEN: f.tokens.a,
      DEFINITION: path.join(dir, 'definition.json'),
    },
  });
  expect(stdout).toContain('event: end');
  expect(stdout).toMatch(/"status":"completed"/);
  expect(stdout).toMatch(/"token":"[^"]+","expiresAt"/);
});
