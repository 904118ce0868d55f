import { proxyActivities } from '@temporalio/workflow';

const { greet } = proxyActivities<{ greet(name: string): Promise<string> }>({ startToCloseTimeout: '10s' });

/** The smallest real workflow: one activity round trip through the server. */
export async function smokeWorkflow(name: string): Promise<string> {
  return `workflow saw: ${await greet(name)}`;
}
