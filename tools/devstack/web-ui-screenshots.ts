/**
 * `npm run screenshots`: the Web UI as a person sees it. Starts a throwaway stack (in-memory
 * Temporal dev server with its Web UI, the emulator, the worker), runs three pipelines —
 * one completed, one waiting for an operator after an ambiguous create, one failed — and
 * photographs the Web UI with headless Chromium (chromium.ts) into docs/web-ui-*.png:
 * the workflow list (list), the completed pipeline's timeline and compact history
 * (timeline) and its User Metadata tab (details), and the waiting pipeline's (waiting).
 * Dev-only, not part of npm test; needs /usr/bin/chromium (apt-get install chromium).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from '@temporalio/client';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import type { PipelineDefinitionInput } from '../../src/definition/definition';
import { startEmulator, type RunningEmulator } from '../../src/emulator';
import { loadDefinitionFile } from '../../src/starters/client/definition-file';
import { pipelineStatus, startPipeline } from '../../src/starters/client/pipeline-client';
import { startWorkerProcess } from '../../src/workers/main';
import type { PipelineStatus } from '../../src/contract/messages';
import { findChromium, launchChromium, type Page } from './chromium';
import { localWorkerEnv } from './demo';
import { freePort } from './dev-server';
import { startLocalTemporal } from './local-temporal';
import { repoRoot } from './temporal-cli';
import { connectTemporal } from '../../src/config/temporal-connection';

const TASK_QUEUE = 'reelflow-screenshots';
const SIZE = { width: 1400, height: 1000 };
/** The list's columns: our search attributes beside the usual ones (the UI keeps them in localStorage). */
const LIST_COLUMNS = ['Status', 'Workflow ID', 'ReelflowStage', 'ReelflowStatus', 'Start', 'End'];

interface Stack {
  client: Client;
  emulator: RunningEmulator;
  uiUrl: string;
  namespace: string;
  stop(): Promise<void>;
}

const say = (line: string) => process.stderr.write(`screenshots: ${line}\n`);

async function startStack(scratch: string): Promise<Stack> {
  const stops: (() => Promise<unknown>)[] = [];
  const stop = async () => {
    for (const s of stops.reverse()) await s().catch(() => undefined);
  };
  try {
    const server = await startLocalTemporal({ logFile: path.join(scratch, 'temporal.log') }); // in memory, UI on
    stops.push(() => server.stop());
    if (!server.uiUrl) throw new Error('the dev server started without its Web UI');
    const emulator = await startEmulator({ host: '127.0.0.1' });
    stops.push(() => emulator.close());
    const callbackPort = await freePort();
    const worker = await startWorkerProcess({
      env: {
        PATH: process.env.PATH,
        ...localWorkerEnv({
          server,
          emulatorUrl: emulator.url,
          taskQueue: TASK_QUEUE,
          archiveDir: path.join(scratch, 'archive'),
          callbackPort,
        }),
      },
      log: (line) => say(`[worker] ${line}`),
    });
    stops.push(async () => {
      worker.shutdown();
      await worker.done.catch(() => undefined);
    });
    const connection = await connectTemporal({ address: server.address });
    stops.push(() => connection.close());
    const client = new Client({ connection, namespace: server.namespace });
    return { client, emulator, uiUrl: server.uiUrl, namespace: server.namespace, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}

async function waitForStatus(
  stack: Stack,
  workflowId: string,
  done: (s: PipelineStatus) => boolean,
  timeoutMs = 180_000,
): Promise<PipelineStatus> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const status = await pipelineStatus(stack.client, workflowId).catch(() => undefined);
    if (status && done(status)) return status;
    if (Date.now() > deadline) throw new Error(`${workflowId}: not there after ${timeoutMs} ms (${status?.state})`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** A text-only generation followed by subtitle erasure: no media to fetch. */
const textToVideo = (name: string, text: string): PipelineDefinitionInput => ({
  name,
  generation: { model: 'video-gen-pro', content: [{ type: 'text', text }], ratio: '16:9', duration: 5 },
  erase: true,
  options: { archive: false },
});

interface Pipelines {
  completed: string;
  waiting: string;
  failed: string;
}

/** One after the other, because each fault is taken by the next matching request. */
async function runPipelines(stack: Stack): Promise<Pipelines> {
  const start = (def: PipelineDefinitionInput) => startPipeline(stack.client, def, { taskQueue: TASK_QUEUE });

  stack.emulator.setFaults({ 'generation.create': { resetAfterCreate: { next: 1 } } });
  const waiting = await start(textToVideo('needs-operator', 'A lighthouse at dusk, waves below.'));
  await waitForStatus(stack, waiting.workflowId, (s) => s.state === 'waiting-operator');
  say(`${waiting.workflowId} waits for an operator`);

  stack.emulator.setFaults({ 'erase.create': { upstream502: { next: 1 } } });
  const failed = await start(textToVideo('erase-fails', 'A paper boat on a rainy street.'));
  const completedAnyway = await failed.result().then(
    () => true,
    () => false,
  );
  if (completedAnyway) throw new Error(`${failed.workflowId} completed despite the injected erase fault`);
  say(`${failed.workflowId} failed (erase create answered 502)`);

  stack.emulator.setFaults({});
  const loaded = await loadDefinitionFile(path.join(repoRoot(), 'examples', 'pipeline.json'), {
    allowPrivateHosts: true,
  });
  const completed = await start(loaded.input);
  await completed.result();
  say(`${completed.workflowId} completed`);
  return { completed: completed.workflowId, waiting: waiting.workflowId, failed: failed.workflowId };
}

/** The UI's own text once a page has loaded its data. */
const hasText = (text: string) => `document.body.innerText.includes(${JSON.stringify(text)})`;
/** Summary, Details and Current Details are markdown rendered in iframes of the UI's origin. */
const METADATA_RENDERED = `(() => {
  const frames = [...document.querySelectorAll('iframe')];
  return frames.length >= 3 && frames.every((f) => f.contentDocument?.readyState === 'complete'
    && f.contentDocument.body.innerText.trim().length > 0);
})()`;
/** Picks the history's compact view: one line per activity or timer, with its summary. */
const COMPACT_VIEW = `[...document.querySelectorAll('button, a')].find((e) => e.innerText.trim() === 'Compact')?.click() ?? true`;
/** Scrolls "Event History" (timeline, then the compact list) to just below the sticky top bar; true once there. */
const HISTORY_AT_TOP = `(() => {
  const heading = [...document.querySelectorAll('h1, h2, h3')].find((e) => e.textContent.trim() === 'Event History');
  let scroller = heading.parentElement;
  while (scroller && !/auto|scroll/.test(getComputedStyle(scroller).overflowY)) scroller = scroller.parentElement;
  if (!scroller) return false;
  scroller.scrollTop += heading.getBoundingClientRect().top - 60;
  return Math.abs(heading.getBoundingClientRect().top - 60) < 5;
})()`;

async function shoot(page: Page, outDir: string, name: string): Promise<void> {
  await new Promise((r) => setTimeout(r, 1_500)); // let transitions, late fetches and iframe sizing settle
  const png = await page.screenshot();
  const file = path.join(outDir, `web-ui-${name}.png`);
  writeFileSync(file, png);
  say(`${path.relative(process.cwd(), file)} (${Math.round(png.length / 1024)} KB)`);
}

/** The workflow list with our search attributes as columns (the UI keeps its columns in localStorage). */
async function shootList(page: Page, stack: Stack, ids: Pipelines, outDir: string): Promise<void> {
  const url = `${stack.uiUrl}/namespaces/${stack.namespace}/workflows`;
  await page.open(url, hasText('Workflow ID'), SIZE);
  const columns = { [stack.namespace]: LIST_COLUMNS.map((label) => ({ label })) };
  await page.evaluate(
    `localStorage.setItem('namespace-workflow-table-columns', ${JSON.stringify(JSON.stringify(columns))})`,
  );
  const rows = Object.values(ids).map(hasText);
  await page.open(url, [...rows, hasText('ReelflowStatus'), hasText('waiting-operator')].join(' && '), SIZE);
  await shoot(page, outDir, 'list');
}

async function takeScreenshots(stack: Stack, ids: Pipelines, outDir: string): Promise<void> {
  const browser = await launchChromium();
  try {
    const { page } = browser;
    await shootList(page, stack, ids, outDir);
    const pageOf = async (workflowId: string, tab: string) => {
      const { runId } = await stack.client.workflow.getHandle(workflowId).describe();
      return `${stack.uiUrl}/namespaces/${stack.namespace}/workflows/${encodeURIComponent(workflowId)}/${runId}/${tab}`;
    };
    await page.open(await pageOf(ids.completed, 'history'), hasText('Event History'), SIZE);
    await page.evaluate(COMPACT_VIEW);
    await page.waitFor(`${hasText('Activity Type')} && !${hasText('Activity Task Scheduled')}`); // compact, not all events
    await page.waitFor(HISTORY_AT_TOP);
    await shoot(page, outDir, 'timeline');
    await page.open(await pageOf(ids.completed, 'user-metadata'), METADATA_RENDERED, SIZE);
    await shoot(page, outDir, 'details');
    await page.open(await pageOf(ids.waiting, 'user-metadata'), METADATA_RENDERED, SIZE);
    await shoot(page, outDir, 'waiting');
  } finally {
    await browser.close();
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      out: { type: 'string', default: path.join(repoRoot(), 'docs') },
      /** Keep the stack up afterwards (Ctrl-C stops it), to look at the UI by hand. */
      keep: { type: 'boolean' },
    },
  });
  findChromium(); // fail before starting anything
  const outDir = path.resolve(values.out);
  mkdirSync(outDir, { recursive: true });
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'reelflow-screenshots-'));
  Runtime.install({ logger: new DefaultLogger('ERROR'), shutdownSignals: [] });
  say('starting the dev server (Web UI on), the emulator and the worker…');
  const stack = await startStack(scratch);
  try {
    const ids = await runPipelines(stack);
    const shot = await takeScreenshots(stack, ids, outDir).catch((e: unknown) => e);
    if (values.keep) {
      // Also after a failed screenshot: the UI can then be looked at by hand.
      if (shot instanceof Error) say(`screenshots failed: ${shot.message}`);
      say(`stack kept up: ${stack.uiUrl} (Ctrl-C stops it)`);
      await new Promise<void>((resolve) => process.once('SIGINT', () => resolve()));
    }
    if (shot instanceof Error) throw shot;
  } finally {
    await stack.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
}

if (require.main === module) {
  // Exit explicitly: the SDK's native runtime may keep the event loop alive.
  main().then(
    () => process.exit(0),
    (e: unknown) => {
      process.stderr.write(`screenshots: ${e instanceof Error ? e.message : String(e)}\n`);
      process.exit(1);
    },
  );
}
