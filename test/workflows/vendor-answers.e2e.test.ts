/**
 * Vendor answers that are not verdicts (issue "Vendor dialects and hostile input", §1 and §6):
 * a state we do not know, "not found" just after a create (read-after-write lag), a task
 * that expired at the vendor, and a 429 whose Retry-After must hold every later call.
 * Real dev server, real worker, the emulator over HTTP with seeded task faults.
 */
import { WorkflowFailedError } from '@temporalio/client';
import type { PipelineDefinitionInput } from '../../src/definition/definition';
import { startHarness, waitForStatus, type Harness } from '../support/harness';

const quick = {
  generationQueuedMs: 300,
  generationRunningMs: 1_000,
  assetProcessingMs: 800,
  eraseInProgressMs: 800,
  reviewProcessingMs: 800,
};

const generation = (options: PipelineDefinitionInput['options'] = {}, erase = false): PipelineDefinitionInput => ({
  generation: { model: 'video-model-1', content: [{ type: 'text', text: 'vendor answers' }] },
  erase,
  options: { archive: false, ...options },
});

/** The failure chain's messages, outermost first: pipeline → stage → cause. */
async function failureOf(promise: Promise<unknown>): Promise<string> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(WorkflowFailedError);
  const parts: string[] = [];
  for (let e: unknown = err; e instanceof Error; e = (e as { cause?: unknown }).cause) parts.push(e.message);
  return parts.join(' <- ');
}

describe.each(['seed', 'upstream'] as const)('vendor answers (%s dialect)', (dialect) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ emulator: { profile: quick, dialect } });
  });
  afterAll(async () => h?.close());
  beforeEach(() => h.emulator.reset());

  test('"not found" right after the create is lag: the pipeline waits it out and completes with one task', async () => {
    h.emulator.setFaults({ 'generation.create': { readLag: { next: 1, ms: 4_000 } } });
    const { result } = await h.run(generation({ deadlines: { notFoundGrace: '30s' } }));
    const s = h.emulator.inspect();
    expect(s.generationTasks).toHaveLength(1);
    expect(result.generation?.taskId).toBe(s.generationTasks[0].id);
    const notFound = h.emulator.inspect().requests.filter((r) => r.endpoint === 'generation.get' && r.status === 404);
    expect(notFound.length).toBeGreaterThan(0);
  });

  test('"not found" past the grace fails the stage saying the issued id is unknown at the vendor', async () => {
    h.emulator.setFaults({ 'generation.create': { readLag: { next: 1, ms: 60_000 } } });
    const handle = await h.start(generation({ deadlines: { notFoundGrace: '3s' } }));
    const message = await failureOf(handle.result());
    const taskId = h.emulator.inspect().generationTasks[0].id;
    expect(message).toContain(`generation task ${taskId}`);
    expect(message).toContain('was issued by the create but is unknown at the vendor');
  });

  test('an asset just created that answers AssetNotOwned is lag too: the assets stage completes', async () => {
    h.emulator.setFaults({ 'assets.CreateAsset': { readLag: { next: 1, ms: 3_000 } } });
    const { result } = await h.run({
      assets: {
        group: { name: `lag-${dialect}` },
        items: [{ name: 'bgm', url: 'https://media.example.com/audio/theme.mp3', type: 'Audio' }],
        firstReadAfter: 0, // read at once, inside the 3 s lag
      },
      options: { archive: false, deadlines: { notFoundGrace: '30s' } },
    });
    expect(result.assets?.items[0].status).toBe('Active');
    const refused = h.emulator.inspect().requests.filter((r) => r.action === 'GetAsset' && r.status === 403);
    expect(refused.length).toBeGreaterThan(0);
  });

  test('an unknown state is shown in status and polled on until the task ends', async () => {
    h.emulator.setFaults({ 'erase.create': { unknownState: { next: 1, state: 'NOT_START', queries: 3 } } });
    const handle = await h.start(generation({}, true));
    const seen = await waitForStatus(handle, (st) => (st.stages.erase.detail ?? '').includes('not understood'));
    expect(seen.stages.erase.detail).toContain('vendor state "NOT_START" not understood');
    const result = await handle.result();
    expect(result.erase?.taskId).toBe(h.emulator.inspect().eraseTasks[0].taskId);
  });

  test('a state never understood fails at the stage deadline, naming the state', async () => {
    h.emulator.setFaults({ 'generation.create': { unknownState: { next: 1, state: 'weird' } } });
    const handle = await h.start(generation({ deadlines: { vendorTask: '6s' } }));
    const message = await failureOf(handle.result());
    expect(message).toContain('vendor state "weird" not understood');
    expect(message).toContain('deadline');
  });

  test('a generation task that expired at the vendor ends the stage at once', async () => {
    h.emulator.setFaults({ 'generation.create': { expire: { next: 1 } } });
    const handle = await h.start(generation({ deadlines: { vendorTask: '2h' } }));
    const message = await failureOf(handle.result());
    expect(message).toContain('expired at the vendor');
    const queries = h.emulator.inspect().requests.filter((r) => r.endpoint === 'generation.get');
    expect(queries.length).toBeLessThan(10);
  });

  test("Retry-After is never undercut, across the query activity's attempts and the poll loop", async () => {
    // Five 429s in a row: more than one query activity's four attempts.
    h.emulator.setFaults({ 'generation.get': { rateLimit429: { next: 5, retryAfterSeconds: 3 } } });
    await h.run(generation());
    const gets = h.emulator.inspect().requests.filter((r) => r.endpoint === 'generation.get');
    expect(gets.filter((r) => r.status === 429)).toHaveLength(5);
    for (let i = 1; i < gets.length; i++) {
      if (gets[i - 1].status !== 429) continue;
      const gap = Date.parse(gets[i].at) - Date.parse(gets[i - 1].at);
      expect(gap).toBeGreaterThanOrEqual(3_000);
    }
  });
});

test("upstream dialect: the video URL expires 24 h after the terminal answer's updated_at", async () => {
  const h = await startHarness({ emulator: { profile: quick, dialect: 'upstream' } });
  try {
    const handle = await h.start(generation());
    const result = await handle.result();
    const answer = (await h.vendor.generation.get(result.generation!.taskId)) as { updated_at?: number };
    expect(answer.updated_at).toBeDefined();
    expect(Date.parse(result.generation!.videoUrlExpiresAt)).toBe(answer.updated_at! * 1000 + 24 * 3_600_000);
  } finally {
    await h.close();
  }
});
