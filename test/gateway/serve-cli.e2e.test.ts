/**
 * `reelflow serve` itself: configured by REELFLOW_GATEWAY_* (docs/api.md, "Configuration"), it
 * listens, answers with its tokens until Ctrl-C, then exits 0; a bad tokens document is refused
 * naming the variable and the field, and never the token.
 */
import { Readable } from 'node:stream';
import { runCli, type CliIo } from '../../src/starters/cli/main';
import { cli } from '../support/cli';
import { until } from '../support/poll';
import { token } from '../support/gateway';

const env = (tokens: unknown): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH,
  HOME: '/nonexistent',
  TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS,
  TEMPORAL_NAMESPACE: process.env.TEMPORAL_NAMESPACE ?? 'default',
  REELFLOW_GATEWAY_TOKENS: JSON.stringify(tokens),
});

test('serve listens with its tokens until aborted, then exits 0', async () => {
  const admin = token();
  const abort = new AbortController();
  let stdout = '';
  const io: CliIo = {
    stdout: { write: (s: string) => (stdout += s), isTTY: false, columns: 200 },
    stderr: { write: () => true, isTTY: false },
    stdin: Readable.from([]),
    env: env({ tokens: [{ name: 'ops', token: admin, admin: true }] }),
    cwd: process.cwd(),
    signal: abort.signal,
  };
  const exit = runCli(['serve', '--port', '0'], io);
  const url = await until('the listening line', () => /listening on (http:\/\/\S+)/.exec(stdout)?.[1]);
  expect((await fetch(`${url}/healthz`)).status).toBe(200);
  expect((await fetch(`${url}/v1/pipelines`)).status).toBe(401);
  // A batch no pipeline is in: the answer does not depend on what other tests left in the namespace
  // (some with encrypted payloads, which this gateway, without the codec keys, cannot read).
  const none = await fetch(`${url}/v1/pipelines?batch=serve-cli-${Date.now()}`, {
    headers: { authorization: `Bearer ${admin}` },
  });
  expect(none.status).toBe(200);
  abort.abort();
  expect(await exit).toBe(0);
});

test('a bad tokens document is refused naming the variable and the field, never the token', async () => {
  const short = 'too-short-token';
  const run = await cli(['serve', '--port', '0'], {
    env: env({ tokens: [{ name: 'x', token: short, tenant: 'acme' }] }),
  });
  expect(run.code).not.toBe(0);
  expect(run.stderr).toMatch(/REELFLOW_GATEWAY_TOKENS: tokens\.0\.token: at least 24 characters/);
  expect(run.stderr).not.toContain(short);
});
