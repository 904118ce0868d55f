/**
 * The CLI says what the worker will refuse before a workflow exists (docs/cli.md, "What the
 * worker checks"): with the worker's REELFLOW_TENANTS_FILE or REELFLOW_NOTIFY_ALLOW_PRIVATE in
 * its environment it runs the worker's own checks; without them `validate` says what the
 * worker will check. The last test starts on the real dev server: nothing is started.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Client } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/common';
import { cli } from '../support/cli';
import { connectTemporal } from '../../src/config/temporal-connection';

const dir = mkdtempSync(path.join(os.tmpdir(), 'reelflow-worker-checks-'));
const file = (name: string, value: unknown) => {
  const f = path.join(dir, name);
  writeFileSync(f, JSON.stringify(value));
  return f;
};
const generation = { model: 'video-model-1', content: [{ type: 'text', text: 'a kite' }] };
const tenants = file('tenants.json', { tenants: { acme: {}, shared: {} } });
const withDefault = file('tenants-default.json', { defaultTenant: 'shared', tenants: { acme: {}, shared: {} } });
const plain = file('plain.json', { generation });
const initech = file('initech.json', { generation, options: { tenant: 'initech' } });
const privateHook = file('hook.json', { generation, options: { notify: { url: 'http://127.0.0.1:9/hook' } } });

/** The test's environment without the worker's variables this page is about. */
function envWith(vars: Record<string, string>): NodeJS.ProcessEnv {
  const { REELFLOW_TENANTS_FILE: _t, REELFLOW_NOTIFY_ALLOW_PRIVATE: _n, ...rest } = process.env;
  return { ...rest, ...vars };
}
/** Connecting would fail with exit 1: an exit 2 was decided before anything connected. */
const nowhere = (vars: Record<string, string> = {}) => envWith({ TEMPORAL_ADDRESS: '127.0.0.1:1', ...vars });

describe('REELFLOW_TENANTS_FILE: the tenant policy, before anything starts', () => {
  test('start --tenant <unknown>: a usage error naming the flag', async () => {
    const r = await cli(['start', plain, '--tenant', 'initech'], { env: nowhere({ REELFLOW_TENANTS_FILE: tenants }) });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^reelflow: option --tenant: "initech" is not a tenant this worker knows \(REELFLOW_TENANTS_FILE\)\n/,
    );
  });

  test('an unknown options.tenant: refused naming the field (validate, and run the same)', async () => {
    const env = nowhere({ REELFLOW_TENANTS_FILE: tenants });
    for (const argv of [
      ['validate', initech],
      ['run', initech],
    ]) {
      const r = await cli(argv, { env });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`${initech}: options.tenant: "initech" is not a tenant this worker knows`);
    }
  });

  test('with a defaultTenant, an unknown tenant is no refusal: validate says it runs as the default', async () => {
    const r = await cli(['validate', initech, '--json'], { env: nowhere({ REELFLOW_TENANTS_FILE: withDefault }) });
    expect(r.code).toBe(0);
    expect(r.json().workerChecks).toEqual([
      'options.tenant "initech" is not in REELFLOW_TENANTS_FILE: it runs as the default tenant "shared"',
    ]);
  });

  test('without the file, validate says what the worker will check', async () => {
    const r = await cli(['validate', initech], { env: nowhere() });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(
      /^note: options\.tenant "initech": the worker checks it against its REELFLOW_TENANTS_FILE/m,
    );
  });
});

describe("REELFLOW_NOTIFY_ALLOW_PRIVATE: the worker's webhook host check", () => {
  test.each([['validate'], ['start']])('%s refuses a private target the variable does not list', async (command) => {
    const r = await cli([command, privateHook], { env: nowhere({ REELFLOW_NOTIFY_ALLOW_PRIVATE: '10.0.0.0/8' }) });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /options\.notify\.url: .*127\.0\.0\.1.*\(the worker's REELFLOW_NOTIFY_ALLOW_PRIVATE does not list it\)/,
    );
  });

  test('a target it lists passes; unset, validate says the worker will judge it', async () => {
    const listed = await cli(['validate', privateHook], {
      env: nowhere({ REELFLOW_NOTIFY_ALLOW_PRIVATE: '127.0.0.1' }),
    });
    expect(listed.code).toBe(0);
    const unset = await cli(['validate', privateHook, '--json'], { env: nowhere() });
    expect(unset.code).toBe(0);
    expect(unset.json().workerChecks).toEqual([
      'options.notify: the worker signs with REELFLOW_PROFILE_DEFAULT_WEBHOOK_SECRET, and refuses the pipeline without it',
      expect.stringMatching(
        /^options\.notify\.url: .*: the worker refuses it unless its REELFLOW_NOTIFY_ALLOW_PRIVATE lists it$/,
      ),
    ]);
  });

  test('a malformed variable is named, as the worker names it', async () => {
    const r = await cli(['validate', privateHook], { env: nowhere({ REELFLOW_NOTIFY_ALLOW_PRIVATE: 'not a host!' }) });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/REELFLOW_NOTIFY_ALLOW_PRIVATE: /);
  });
});

test('on the real dev server: start --tenant <unknown> starts no workflow', async () => {
  const workflowId = `worker-checks-${randomUUID()}`;
  const r = await cli(['start', plain, '--tenant', 'initech', '--workflow-id', workflowId], {
    env: envWith({ REELFLOW_TENANTS_FILE: tenants }),
  });
  expect(r.code).toBe(2);
  const connection = await connectTemporal({ address: process.env.TEMPORAL_ADDRESS });
  try {
    const describe = new Client({ connection }).workflow.getHandle(workflowId).describe();
    await expect(describe).rejects.toBeInstanceOf(WorkflowNotFoundError);
  } finally {
    await connection.close();
  }
});
