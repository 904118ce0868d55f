/** Test workflow for the worker entry: one activity on the main queue, GetAsset on the profile's queue. */
import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import { getAssetTaskQueue } from '../../src/contract/messages';

interface TestActivities {
  getAsset(input: { profile: string; id: string }): Promise<string>;
  whereAmI(): Promise<string>;
}

/** Returns the task queue each activity actually ran on. */
export async function taskQueuesWorkflow(profile: string): Promise<{ main: string; getAsset: string }> {
  const { whereAmI } = proxyActivities<TestActivities>({ startToCloseTimeout: '10s' });
  const { getAsset } = proxyActivities<TestActivities>({
    startToCloseTimeout: '10s',
    taskQueue: getAssetTaskQueue(workflowInfo().taskQueue, profile),
  });
  return { main: await whereAmI(), getAsset: await getAsset({ profile, id: 'asset-1' }) };
}

/** `n` GetAsset of one asset, all scheduled at once: a burst for the rate limit to absorb. */
export async function getAssetBurst(profile: string, id: string, n: number): Promise<number> {
  const { getAsset } = proxyActivities<TestActivities>({
    startToCloseTimeout: '60s',
    retry: { maximumAttempts: 1 },
    taskQueue: getAssetTaskQueue(workflowInfo().taskQueue, profile),
  });
  const done = await Promise.all(Array.from({ length: n }, () => getAsset({ profile, id })));
  return done.length;
}
