/**
 * Tenants bound to credential profiles, end to end (docs/tenants.md, "Credential profiles"):
 * the real dev server, a real worker with a tenant configuration, the emulator as vendor. The
 * worker serves the profile `default`; a tenant bound to another profile is refused it by the
 * definition check, naming options.profile and the tenant, before any vendor call.
 */
import { randomUUID } from 'node:crypto';
import { WorkflowFailedError } from '@temporalio/client';
import type { PipelineDefinitionInput } from '../../src/definition/definition';
import { FailureType } from '../../src/failures';
import { parseTenantsConfig } from '../../src/tenants/config';
import { rejection, startHarness, type Harness } from '../support/harness';

const tag = randomUUID().slice(0, 6);
const T = { bound: `bound-${tag}`, open: `open-${tag}` };
const config = parseTenantsConfig({
  tenants: { [T.bound]: { profiles: ['acme'] }, [T.open]: { profiles: ['acme', 'default'] } },
});

const generation = (tenant: string): PipelineDefinitionInput => ({
  generation: { model: 'video-model-1', content: [{ type: 'text', text: 'profiles test' }] },
  options: { archive: false, tenant, profile: 'default' },
});

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    emulator: { profile: { generationQueuedMs: 300, generationRunningMs: 800 } },
    tenants: config,
  });
});
afterAll(async () => h?.close());

test("a profile the tenant may not spend on fails the definition check before any vendor call; the tenant's own profile runs", async () => {
  h.emulator.reset();
  const refused = await h.start(generation(T.bound));
  const err = await rejection(refused.result(), WorkflowFailedError);
  expect(err.cause).toMatchObject({ type: FailureType.InvalidDefinition });
  expect(err.cause?.message).toContain(
    `options.profile: credential profile "default" is not one that tenant "${T.bound}" may spend on`,
  );
  expect(h.emulator.inspect().counters.requests).toBe(0);

  const { result } = await h.run(generation(T.open));
  expect(result.generation?.taskId).toBe(h.emulator.inspect().generationTasks[0]?.id);
  expect(h.emulator.inspect().generationTasks).toHaveLength(1);
});
