/**
 * The standalone receiver's own config: the three receiver variables, the worker's rules
 * and wording, and nothing else of the worker's environment.
 */
import { inspect } from 'node:util';
import { loadReceiverConfig } from '../../src/callbacks/config';
import { ConfigError } from '../../src/config/env';
import { loadWorkerConfig } from '../../src/workers/config';

const SECRET = 'receiver-config-secret-0123456789';

function errorOf(env: Record<string, string>): ConfigError {
  try {
    loadReceiverConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

test('defaults: port 8089 on 0.0.0.0; the secret never shows', () => {
  const c = loadReceiverConfig({ REELFLOW_CALLBACK_SECRET: SECRET, REELFLOW_CALLBACK_PORT: ' ' });
  expect(c).toEqual({ host: '0.0.0.0', port: 8089, logLevel: 'info', limits: {} });
  expect(c.secret).toBe(SECRET);
  expect(JSON.stringify(c) + inspect(c, { depth: 5 }) + JSON.stringify({ ...c })).not.toContain(SECRET);
});

test('reads host, port and the limits', () => {
  expect(
    loadReceiverConfig({
      REELFLOW_CALLBACK_SECRET: SECRET,
      REELFLOW_CALLBACK_PORT: '0',
      REELFLOW_CALLBACK_HOST: '127.0.0.1',
      REELFLOW_CALLBACK_MAX_CONNECTIONS: '1000',
      REELFLOW_CALLBACK_MAX_BODY_BYTES: '131072',
      REELFLOW_CALLBACK_MAX_READING: '32',
    }),
  ).toEqual({
    host: '127.0.0.1',
    port: 0,
    logLevel: 'info',
    limits: { maxConnections: 1000, bodyLimitBytes: 131072, maxReading: 32 },
  });
});

test("the worker-only variables are not the receiver's business, even when malformed", () => {
  const env = {
    REELFLOW_CALLBACK_SECRET: SECRET,
    REELFLOW_GETASSET_RATE: 'fast',
    REELFLOW_TASK_QUEUE: 'a queue',
    REELFLOW_CALLBACK_BASE_URL: 'ftp://x',
  };
  expect(() => loadWorkerConfig(env)).toThrow(/REELFLOW_GETASSET_RATE/);
  expect(loadReceiverConfig(env)).toEqual({ host: '0.0.0.0', port: 8089, logLevel: 'info', limits: {} });
});

test.each<[string, Record<string, string>, string]>([
  [
    'no secret',
    {},
    'worker config: REELFLOW_CALLBACK_SECRET is required when REELFLOW_CALLBACK_BASE_URL or REELFLOW_CALLBACK_PORT is set',
  ],
  [
    'a short secret',
    { REELFLOW_CALLBACK_SECRET: 'tooShort-9chars' },
    'worker config: REELFLOW_CALLBACK_SECRET must be at least 16 characters',
  ],
  [
    'a port that is not a number',
    { REELFLOW_CALLBACK_SECRET: SECRET, REELFLOW_CALLBACK_PORT: 'http' },
    'worker config: REELFLOW_CALLBACK_PORT must be a whole number',
  ],
  [
    'a port too big',
    { REELFLOW_CALLBACK_SECRET: SECRET, REELFLOW_CALLBACK_PORT: '70000' },
    'worker config: REELFLOW_CALLBACK_PORT must be at most 65535',
  ],
  [
    'a body limit under 1 KiB',
    { REELFLOW_CALLBACK_SECRET: SECRET, REELFLOW_CALLBACK_MAX_BODY_BYTES: '100' },
    'worker config: REELFLOW_CALLBACK_MAX_BODY_BYTES must be at least 1024',
  ],
  [
    'an unknown log level',
    { REELFLOW_CALLBACK_SECRET: SECRET, REELFLOW_LOG_LEVEL: 'verbose' },
    'worker config: REELFLOW_LOG_LEVEL must be one of trace, debug, info, warn, error',
  ],
])('%s: the same message as the worker config gives', (_, env, message) => {
  const err = errorOf(env);
  expect(err.message).toBe(message);
  expect(err.message).not.toContain('tooShort');
  // The worker, told to run the receiver, says exactly the same.
  expect(() => loadWorkerConfig({ REELFLOW_CALLBACK_PORT: '8089', ...env })).toThrow(message);
});
