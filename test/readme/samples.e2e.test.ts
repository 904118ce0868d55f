/**
 * The sample outputs of the README and docs/ are real output: the demo's pipeline
 * (examples/pipeline.json) runs through `reelflow run` in-process against the real dev
 * server, a real worker and the emulator, and what `reelflow result` and `reelflow status`
 * print must equal the samples once ids, URLs, hashes and durations are masked (markdown.ts).
 *
 * The demo (tools/devstack/demo.ts) prints its result with the same renderResult as
 * `reelflow result`, then `Web UI: <link>` as `reelflow run` does with TEMPORAL_UI_URL set;
 * the demo itself starts a dev server of its own, which test/devstack/demo.test.ts covers.
 */
import { startHarness, type Harness } from '../support/harness';
import { cli } from '../support/cli';
import { fences, mask, readPage, section } from './markdown';

let h: Harness;
let pipelineId: string;
let webUiLine: string;
const env = { ...process.env, TEMPORAL_UI_URL: 'http://127.0.0.1:8233' };

beforeAll(async () => {
  h = await startHarness({ callbacks: true }); // examples/pipeline.json asks for callbacks
  const run = await cli(['run', 'examples/pipeline.json', '--task-queue', h.taskQueue, '--interval', '300'], { env });
  expect({ code: run.code, stderr: run.stderr }).toMatchObject({ code: 0 });
  pipelineId = /^started (\S+) on task queue/m.exec(run.stderr)![1];
  webUiLine = /^Web UI: .*$/m.exec(run.stderr)![0];
}, 120_000);
afterAll(() => h?.close());

/** The one fenced block of `text` whose first line matches `first`. */
function sample(text: string, first: RegExp): string {
  const found = fences(text).filter((f) => first.test(f.text.split('\n')[0]));
  expect(found).toHaveLength(1);
  return found[0].text;
}

test('README "The demo": the printed result and Web UI link are what a run of examples/pipeline.json prints', async () => {
  const readme = sample(section(readPage('README.md'), 'The demo'), /^pipeline \S+ completed$/);
  const result = await cli(['result', pipelineId], { env });
  expect(result.code).toBe(0);
  const real = `${result.stdout}\n${webUiLine}\n`;
  expect(mask(real)).toBe(mask(readme));
  // The archive layout the sample shows: <root>/<pipeline id>/<vendor task id>/<file>.
  expect(real).toContain(`${h.archiveRoot}/${pipelineId}/cgt-`);
});

test('docs/operations.md: the `reelflow status` sample is what status prints for that pipeline', async () => {
  const doc = sample(readPage('docs/operations.md'), /^\$ reelflow status \S+$/);
  const [command, ...shown] = doc.split('\n');
  const status = await cli(['status', pipelineId], { env });
  expect(status.code).toBe(0);
  expect(mask(status.stdout)).toBe(mask(shown.join('\n')));
  // The sample is of the README demo's pipeline.
  const demoId = /^pipeline (\S+) completed$/m.exec(readPage('README.md'))![1];
  expect(command).toBe(`$ reelflow status ${demoId}`);
});

test('the masks hide what varies between runs, and nothing else', () => {
  const a = 'reelflow-demo-2ljiqk40  completed · 8985 bytes · cgt-4dd64faf145bfbe421698203 (4.3 s)';
  const b = 'reelflow-demo-abcd1234  completed · 8985 bytes · cgt-0123456789abcdef01234567 (12.0 s)';
  expect(mask(a)).toBe(mask(b));
  expect(mask(a)).not.toBe(mask(a.replace('8985', '8986')));
  expect(mask(a)).not.toBe(mask(a.replace('completed', 'failed')));
  expect(mask('  vendor calls: generation.get 4, erase.get 2')).toBe(
    '  vendor calls: generation.get <n>, erase.get <n>',
  );
  expect(mask('    /tmp/x-1/reelflow-demo-2ljiqk40/cgt-4dd64faf145bfbe421698203/generated.mp4')).toBe(
    '    <archive>/reelflow-demo-<rand>/cgt-<id>/generated.mp4',
  );
});
