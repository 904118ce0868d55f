/** `reelflow setup` registers the search attributes on a namespace, once, on the real server. */
import { randomUUID } from 'node:crypto';

import { runCli } from '../../src/starters/cli/main';
import { REELFLOW_SEARCH_ATTRIBUTES } from '../../src/contract/search-attributes';
import { connectTemporal } from '../../src/config/temporal-connection';

async function cli(args: string[]) {
  let out = '';
  let err = '';
  const code = await runCli(args, {
    stdout: { write: (s: string) => ((out += s), true) },
    stderr: { write: (s: string) => ((err += s), true) },
    env: { TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS },
    cwd: process.cwd(),
  });
  return { code, out, err };
}

test('setup registers the search attributes on a fresh namespace, then finds them there', async () => {
  const namespace = `setup-${randomUUID().slice(0, 8)}`;
  const connection = await connectTemporal({ address: process.env.TEMPORAL_ADDRESS! });
  try {
    await connection.workflowService.registerNamespace({
      namespace,
      workflowExecutionRetentionPeriod: { seconds: 86_400 as never },
    });
    const first = await cli(['setup', '--namespace', namespace, '--wait', '30', '--json']);
    expect(first.code).toBe(0);
    expect(JSON.parse(first.out).added.sort()).toEqual(Object.keys(REELFLOW_SEARCH_ATTRIBUTES).sort());
    const listed = await connection.operatorService.listSearchAttributes({ namespace });
    expect(Object.keys(listed.customAttributes ?? {})).toEqual(
      expect.arrayContaining(Object.keys(REELFLOW_SEARCH_ATTRIBUTES)),
    );

    const again = await cli(['setup', '--namespace', namespace]);
    expect(again.code).toBe(0);
    expect(again.out).toContain('already registered');
  } finally {
    await connection.close();
  }
});

test('setup against an unreachable server fails with a message naming the address', async () => {
  const res = await cli(['setup', '--address', '127.0.0.1:1']);
  expect(res.code).toBe(1);
  expect(res.err).toContain('cannot connect to Temporal at 127.0.0.1:1');
});
