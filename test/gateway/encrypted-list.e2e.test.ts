/**
 * A list that meets a pipeline this gateway cannot decode (its payloads encrypted by a codec
 * whose keys the gateway lacks: a namespace shared with encrypted clients) still answers: the
 * pipeline is listed from its search attributes alone, as docs/api.md says. Before, the whole
 * list answered 500 `Unknown encoding: binary/encrypted`.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { Client } from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import { codecDataConverter } from '../../src/codec';
import { BATCH } from '../../src/contract/search-attributes';
import { startGatewayFixture, type GatewayFixture } from '../support/gateway';

let f: GatewayFixture;
beforeAll(async () => {
  f = await startGatewayFixture();
});
afterAll(() => f?.close());

test('a pipeline whose memo the gateway cannot decode is listed from its search attributes', async () => {
  const encrypted = new Client({
    connection: f.h.connection,
    namespace: process.env.TEMPORAL_NAMESPACE ?? 'default',
    dataConverter: codecDataConverter({ REELFLOW_CODEC_KEYS: `k1:${randomBytes(32).toString('base64')}` }),
  });
  const batch = `encrypted-${randomUUID().slice(0, 8)}`;
  // A queue no worker polls: the run only has to exist, with an encrypted memo.
  const handle = await encrypted.workflow.start('videoPipeline', {
    taskQueue: `nobody-${batch}`,
    workflowId: `${batch}-p`,
    args: [{}],
    memo: { startedBy: 'someone with the keys' },
    typedSearchAttributes: new TypedSearchAttributes([{ key: BATCH, value: batch }]),
  });
  try {
    const res = await f.call(f.tokens.admin, `/v1/pipelines?batch=${batch}`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { pipelines: { workflowId: string }[] };
    expect(body.pipelines.map((p) => p.workflowId)).toEqual([handle.workflowId]);
  } finally {
    await handle.terminate('test over');
  }
});
