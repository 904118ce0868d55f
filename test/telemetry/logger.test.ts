/**
 * The JSON logger: one object per line, the level as a word, REELFLOW_LOG_LEVEL filtering,
 * and no secret in any line (by field name, and by the environment's secret values
 * wherever they sit); the SDK's Logger interface over it; the vendor span's route.
 */
import { createLogger, isSecretKey, lineDestination, lineLogger, secretValues } from '../../src/telemetry/logger';
import { coreLogFilter, sdkLogger } from '../../src/telemetry/sdk-logger';
import { otlpTracesUrl } from '../../src/telemetry/tracing';
import { pathOf } from '../../src/vendor-api/spans';

const ENV = {
  REELFLOW_CALLBACK_SECRET: 'cb-secret-"quoted"-0123456789',
  REELFLOW_PROFILE_DEFAULT_API_KEY: 'sk-unit-test-api-key-987',
  REELFLOW_PROFILE_DEFAULT_ACCESS_TOKEN: 'at-unit-test-token-654',
  TEMPORAL_API_KEY: 'short', // under 8 characters: not treated as a secret value
  REELFLOW_CODEC_KEYS:
    'k1:c2VjcmV0LWtleS1vbmUtMzItYnl0ZXMtbG9uZy0xMjM=,k2:b2xkLWtleS10d28tMzItYnl0ZXMtbG9uZy0wMDAwMDA=',
  REELFLOW_TASK_QUEUE: 'reelflow',
};

function capture(level?: 'trace' | 'debug' | 'info' | 'warn' | 'error') {
  const lines: string[] = [];
  const logger = createLogger({
    name: 'test',
    env: ENV,
    destination: lineDestination((l) => lines.push(l)),
    ...(level ? { level } : {}),
  });
  return { logger, lines, parsed: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

test('one JSON object per line: level word, ISO time, name, message', () => {
  const { logger, parsed, lines } = capture();
  logger.info('hello');
  logger.warn({ taskQueue: 'q' }, 'careful');
  expect(lines).toHaveLength(2);
  expect(parsed()[0]).toMatchObject({ level: 'info', name: 'test', msg: 'hello' });
  expect(parsed()[1]).toMatchObject({ level: 'warn', taskQueue: 'q', msg: 'careful' });
  expect(new Date(String(parsed()[0].time)).toISOString()).toBe(parsed()[0].time);
});

test('the level filters: below it nothing is written', () => {
  const { logger, parsed } = capture('warn');
  logger.debug('d');
  logger.info('i');
  logger.warn('w');
  logger.error('e');
  expect(parsed().map((l) => l.level)).toEqual(['warn', 'error']);
});

test('secret fields are redacted by name; secret values are scrubbed anywhere in the line', () => {
  const { logger, lines } = capture();
  logger.info(
    { apiKey: 'k1-not-in-env', request: { headers: { authorization: 'Bearer xyz-123' } }, taskQueue: 'reelflow' },
    'by name',
  );
  logger.info(`a message that slipped a key in: ${ENV.REELFLOW_PROFILE_DEFAULT_API_KEY}`);
  logger.error({ err: new Error(`vendor echoed ${ENV.REELFLOW_PROFILE_DEFAULT_ACCESS_TOKEN}`) }, 'failed');
  logger.info({ detail: ENV.REELFLOW_CALLBACK_SECRET }, 'escaped in JSON');
  const all = lines.join('\n');
  for (const v of ['k1-not-in-env', 'xyz-123', ...Object.values(ENV).slice(0, 3)]) expect(all).not.toContain(v);
  expect(all).not.toContain(JSON.stringify(ENV.REELFLOW_CALLBACK_SECRET).slice(1, -1));
  expect(all.match(/\[redacted\]/g)?.length).toBeGreaterThanOrEqual(5);
  expect(all).toContain('reelflow'); // ordinary values stay
  for (const k of ['secret', 'Authorization', 'callback_url']) expect(isSecretKey(k)).toBe(true);
});

test('secret values come from variables named like secrets, long enough to be one', () => {
  const values = secretValues(ENV);
  expect(values).toContain(ENV.REELFLOW_PROFILE_DEFAULT_API_KEY);
  expect(values).not.toContain('short');
  // Each key of a list, alone too (the ids are no secret and too short to count).
  expect(values).toContain('b2xkLWtleS10d28tMzItYnl0ZXMtbG9uZy0wMDAwMDA=');
  expect(values).not.toContain('k2');
  expect(values).not.toContain('reelflow');
});

test('each key of a rotation pair is redacted on its own, wherever it is printed alone', () => {
  const next = `whsec_${Buffer.from('the-new-webhook-key-24b!').toString('base64')}`;
  const old = `whsec_${Buffer.from('the-old-webhook-key-24b!').toString('base64')}`;
  const env = {
    REELFLOW_PROFILE_DEFAULT_WEBHOOK_SECRET: `${next} ${old}`,
    REELFLOW_ENDPOINT_ORDERS_WEBHOOK_SECRET: `${next}  ${old}`,
  };
  const lines: string[] = [];
  const logger = createLogger({ name: 't', env, destination: lineDestination((l) => lines.push(l)) });
  logger.info(`the new key alone: ${next}`);
  logger.warn({ detail: `the old key alone: ${old}` }, 'x');
  const all = lines.join('\n');
  for (const key of [next, old]) expect(all).not.toContain(key.slice('whsec_'.length));
  expect(all.match(/\[redacted\]/g)).toHaveLength(2);
});

test('lineLogger: the worker modules’ log(line, level) callbacks keep their level', () => {
  const { logger, parsed } = capture();
  const log = lineLogger(logger);
  log('plain');
  log('refused', 'warn');
  log('failed', 'error');
  expect(parsed().map((l) => [l.level, l.msg])).toEqual([
    ['info', 'plain'],
    ['warn', 'refused'],
    ['error', 'failed'],
  ]);
});

test("the SDK's Logger over pino: levels map, metadata become fields, errors are serialized", () => {
  const { logger, parsed } = capture('debug');
  const sdk = sdkLogger(logger);
  sdk.trace('dropped below debug');
  sdk.debug('Workflow started', { sdkComponent: 'workflow', workflowId: 'wf-1', [Symbol('ts')]: 1n });
  sdk.log('WARN', 'Activity failed', { sdkComponent: 'activity', error: new Error('boom') });
  const [a, b] = parsed();
  expect(parsed()).toHaveLength(2);
  expect(a).toMatchObject({ level: 'debug', sdkComponent: 'workflow', workflowId: 'wf-1', msg: 'Workflow started' });
  expect(b).toMatchObject({ level: 'warn', msg: 'Activity failed', error: { message: 'boom', type: 'Error' } });
  expect(coreLogFilter('debug')).toEqual({ core: 'DEBUG', other: 'WARN' });
  expect(coreLogFilter('error')).toEqual({ core: 'ERROR', other: 'ERROR' });
});

test('tracing: off without the endpoint; the traces URL from the base or as given; a bad value names the variable', () => {
  expect(otlpTracesUrl({})).toBeUndefined();
  expect(otlpTracesUrl({ OTEL_EXPORTER_OTLP_ENDPOINT: ' ' })).toBeUndefined();
  expect(otlpTracesUrl({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318/' })).toBe('http://c:4318/v1/traces');
  expect(
    otlpTracesUrl({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://t.example/otlp/traces',
    }),
  ).toBe('https://t.example/otlp/traces');
  expect(() => otlpTracesUrl({ OTEL_EXPORTER_OTLP_ENDPOINT: 'c:4318' })).toThrow(
    /^OTEL_EXPORTER_OTLP_ENDPOINT must be an http\(s\) URL/,
  );
});

test("vendor span routes: the URL's path, without query or fragment", () => {
  expect(pathOf('http://127.0.0.1:9/base/api/asset-management?Action=GetAsset&Version=1')).toBe(
    '/base/api/asset-management',
  );
  expect(pathOf('https://v.example/v1/task/get/{id}')).toBe('/v1/task/get/{id}');
  expect(pathOf('https://v.example')).toBe('/');
  expect(pathOf('https://v.example/x#frag?y')).toBe('/x');
});

describe('redaction reaches everything', () => {
  const TOKEN_URL = 'https://hooks.example.com/callbacks/wf-1/generation/0/0123456789abcdef0123456789abcdef';

  test('secret-named fields at any depth, in any case and spelling, callback_url and callbackUrl included', () => {
    const { logger, lines } = capture();
    logger.info(
      {
        a: { b: { c: { d: { callback_url: 'deep-1-xxxxxxxx', API_KEY: 'deep-2-xxxxxxxx' } } } },
        list: [{ nested: { callbackUrl: 'deep-3-xxxxxxxx', AUTHORIZATION: 'deep-4-xxxxxxxx' } }],
        headers: { 'X-Access-Token': 'deep-5-xxxxxxxx', Cookie: 'deep-6-xxxxxxxx' },
        webhook_secret: 'deep-7-xxxxxxxx',
        taskQueue: 'reelflow',
      },
      'deep',
    );
    logger.error({ err: Object.assign(new Error('boom'), { request: { callbackUrl: 'deep-8-xxxxxxxx' } }) }, 'e');
    const all = lines.join('\n');
    for (let i = 1; i <= 8; i++) expect(all).not.toContain(`deep-${i}-`);
    expect(JSON.parse(lines[0])).toMatchObject({
      taskQueue: 'reelflow',
      a: { b: { c: { d: { callback_url: '[redacted]' } } } },
    });
  });

  test('secret values are scrubbed whatever their letter case', () => {
    const { logger, lines } = capture();
    logger.info(`upper: ${ENV.REELFLOW_PROFILE_DEFAULT_API_KEY.toUpperCase()}`);
    logger.info(`lower: ${ENV.REELFLOW_PROFILE_DEFAULT_ACCESS_TOKEN.toLowerCase()}`);
    const all = lines.join('\n').toLowerCase();
    expect(all).not.toContain(ENV.REELFLOW_PROFILE_DEFAULT_API_KEY.toLowerCase());
    expect(all).not.toContain(ENV.REELFLOW_PROFILE_DEFAULT_ACCESS_TOKEN.toLowerCase());
  });

  test('the TLS client key, the OTLP headers and the notify URL count as secret variables', () => {
    const pem =
      '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nBKcwggSjAgEAAoIBAQC7\n-----END PRIVATE KEY-----';
    const env = {
      TEMPORAL_TLS_CLIENT_KEY_DATA: pem,
      OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer otlp-cred-abcdef123,x-tenant=acme',
      REELFLOW_NOTIFY_URL: 'https://hooks.example.com/in?token=notify-tok-998877',
    };
    const values = secretValues(env);
    expect(values).toEqual(
      expect.arrayContaining([pem, 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASC', 'otlp-cred-abcdef123', env.REELFLOW_NOTIFY_URL]),
    );
    const lines: string[] = [];
    const logger = createLogger({ name: 't', env, destination: lineDestination((l) => lines.push(l)) });
    logger.info({ detail: pem }, `sent to ${env.REELFLOW_NOTIFY_URL} with otlp-cred-abcdef123`);
    const all = lines.join('\n');
    for (const s of ['MIIEvQIBADANBgkqhkiG9w0BAQEFAASC', 'otlp-cred-abcdef123', 'notify-tok-998877']) {
      expect(all).not.toContain(s);
    }
  });

  test('a callback URL in any text loses its token, keeps its workflow, step and attempt', () => {
    const { logger, lines } = capture();
    logger.warn(`vendor said: bad callback ${TOKEN_URL}`);
    logger.warn({ detail: `encoded ${encodeURIComponent(TOKEN_URL)}` }, 'x');
    const all = lines.join('\n');
    expect(all).not.toContain('0123456789abcdef0123456789abcdef');
    expect(all).toContain('/callbacks/wf-1/generation/0/[redacted]');
  });
});
