/**
 * examples/web in a real browser (Debian's headless Chromium, tools/devstack/chromium.ts): the
 * page, served from its own origin (so CORS is exercised), starts a pipeline through the
 * gateway with a bearer token typed into it and shows the stage table live from EventSource
 * with a stream token, until "completed". The screenshot is kept for docs/api.md.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { launchChromium, type Browser } from '../../tools/devstack/chromium';
import { ensureDebianCommand } from '../support/debian-package';
import { quickDefinition, startGatewayFixture, type GatewayFixture } from '../support/gateway';

const PAGE = path.resolve(__dirname, '../../examples/web/index.html');
/** Where the docs' copy lives; written when REELFLOW_UPDATE_SCREENSHOTS=1, else beside the run's temp files. */
const DOCS_SHOT = path.resolve(__dirname, '../../docs/gateway-web-example.png');

let page: http.Server;
let origin: string;
let f: GatewayFixture;
let browser: Browser;

beforeAll(async () => {
  page = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(readFileSync(PAGE)));
  await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(page.address() as AddressInfo).port}`;
  f = await startGatewayFixture({ config: { corsOrigins: [origin] } });
  ensureDebianCommand('chromium'); // CI installs it here once; tools/devstack/chromium.ts finds it
  browser = await launchChromium();
}, 600_000);
afterAll(async () => {
  await browser?.close();
  await f?.close();
  page?.close();
});

test('the page starts a pipeline and shows its stages live until completed', async () => {
  const p = browser.page;
  await p.open(`${origin}/?api=${encodeURIComponent(f.gw.url)}`, `document.querySelector('#start')`, {
    width: 900,
    height: 620,
  });
  await p.evaluate(`(() => {
    document.querySelector('#token').value = ${JSON.stringify(f.tokens.a)};
    document.querySelector('#definition').value = ${JSON.stringify(JSON.stringify(quickDefinition({ name: 'web' })))};
    document.querySelector('#start').click();
    return true;
  })()`);
  // Live: the table shows generation running before the end.
  await p.waitFor(
    `[...document.querySelectorAll('#stages tr')].some((r) => r.textContent.includes('generation'))`,
    60_000,
  );
  await p.waitFor(`document.querySelector('#state').textContent === 'completed'`, 90_000);
  const rows = await p.evaluate<string[]>(`[...document.querySelectorAll('#stages tr')].map((r) => r.textContent)`);
  expect(rows.join('|')).toMatch(/generation\s*done/);
  expect(await p.evaluate<string>(`document.querySelector('#error').textContent`)).toBe('');
  const pipelineId = await p.evaluate<string>(`document.querySelector('#pipeline').textContent`);
  expect(pipelineId.startsWith(`reelflow:${f.tenants.a}:web-`)).toBe(true);
  const shot = await p.screenshot();
  expect(shot.length).toBeGreaterThan(1000);
  const out =
    process.env.REELFLOW_UPDATE_SCREENSHOTS === '1' ? DOCS_SHOT : path.join(f.h.archiveRoot, 'gateway-web-example.png');
  writeFileSync(out, shot);
});
