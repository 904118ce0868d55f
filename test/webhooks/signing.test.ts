/** Standard Webhooks signing and verifyWebhook: the spec's test vector, and every refusal. */
import {
  signWebhook,
  verifyWebhook,
  webhookHeaders,
  webhookSecretListProblem,
  webhookSecretProblem,
  WebhookVerificationError,
} from '../../src/webhooks/signing';

// The specification's published test vector (its libraries all check against it).
const VECTOR = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};
const AT = VECTOR.timestamp * 1000;
const headers = (over: Record<string, string> = {}) => ({
  'webhook-id': VECTOR.id,
  'webhook-timestamp': String(VECTOR.timestamp),
  'webhook-signature': VECTOR.signature,
  ...over,
});

function code(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    if (err instanceof WebhookVerificationError) return err.code;
    throw err;
  }
  return 'accepted';
}

test('signs the specification test vector', () => {
  expect(signWebhook(VECTOR.secret, VECTOR.id, VECTOR.timestamp, VECTOR.body)).toBe(VECTOR.signature);
  expect(webhookHeaders(VECTOR.secret, VECTOR.id, VECTOR.timestamp, VECTOR.body)).toEqual(headers());
});

test('verifies it, from a plain object in any case, a Fetch Headers or a Buffer body', () => {
  expect(verifyWebhook(VECTOR.secret, headers(), VECTOR.body, { now: AT })).toEqual({ test: 2432232314 });
  const upper = Object.fromEntries(Object.entries(headers()).map(([k, v]) => [k.toUpperCase(), v]));
  expect(code(() => verifyWebhook(VECTOR.secret, upper, VECTOR.body, { now: AT }))).toBe('accepted');
  expect(code(() => verifyWebhook(VECTOR.secret, new Headers(headers()), Buffer.from(VECTOR.body), { now: AT }))).toBe(
    'accepted',
  );
  // Several signatures (a secret being rotated): one match is enough.
  const two = headers({ 'webhook-signature': `v1,AAAA ${VECTOR.signature}` });
  expect(code(() => verifyWebhook(VECTOR.secret, two, VECTOR.body, { now: AT }))).toBe('accepted');
});

test('refuses a tampered body, another secret, another id, a missing header', () => {
  const other = `whsec_${Buffer.from('another-secret-of-24-byte').toString('base64')}`;
  expect(code(() => verifyWebhook(VECTOR.secret, headers(), '{"test": 2432232315}', { now: AT }))).toBe(
    'no_matching_signature',
  );
  expect(code(() => verifyWebhook(other, headers(), VECTOR.body, { now: AT }))).toBe('no_matching_signature');
  expect(code(() => verifyWebhook(VECTOR.secret, headers({ 'webhook-id': 'msg_x' }), VECTOR.body, { now: AT }))).toBe(
    'no_matching_signature',
  );
  expect(
    code(() => verifyWebhook(VECTOR.secret, headers({ 'webhook-signature': 'v2,abc' }), VECTOR.body, { now: AT })),
  ).toBe('no_matching_signature');
  const { 'webhook-timestamp': _, ...noTimestamp } = headers();
  expect(code(() => verifyWebhook(VECTOR.secret, noTimestamp, VECTOR.body, { now: AT }))).toBe('missing_header');
  expect(
    code(() => verifyWebhook(VECTOR.secret, headers({ 'webhook-timestamp': '16e8' }), VECTOR.body, { now: AT })),
  ).toBe('invalid_timestamp');
});

test('refuses a timestamp past the tolerance either way (a replay, a clock far ahead)', () => {
  const check = (now: number, toleranceSeconds?: number) =>
    code(() =>
      verifyWebhook(VECTOR.secret, headers(), VECTOR.body, { now, ...(toleranceSeconds ? { toleranceSeconds } : {}) }),
    );
  expect(check(AT + 300_000)).toBe('accepted');
  expect(check(AT + 301_000)).toBe('timestamp_out_of_tolerance');
  expect(check(AT - 301_000)).toBe('timestamp_out_of_tolerance');
  expect(check(AT + 301_000, 600)).toBe('accepted');
});

test('a malformed secret is named, never echoed', () => {
  expect(webhookSecretProblem('MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw')).toMatch(/must start with whsec_/);
  expect(webhookSecretProblem('whsec_not base64!')).toMatch(/base64/);
  expect(webhookSecretProblem(`whsec_${Buffer.from('short').toString('base64')}`)).toMatch(/at least 16 bytes/);
  expect(webhookSecretProblem(VECTOR.secret)).toBeUndefined();
  let message = '';
  try {
    verifyWebhook('whsec_s3cr3t-value', headers(), VECTOR.body, { now: AT });
  } catch (err) {
    message = (err as Error).message;
  }
  expect(message).toMatch(/webhook secret must be whsec_ followed by base64/);
  expect(message).not.toContain('s3cr3t');
});

test('strict decoding: junk appended to a genuine signature does not verify', () => {
  // Buffer.from(b64, 'base64') stops at the first character that is not base64 and ignores
  // the rest, so these would all decode to the genuine 32 bytes.
  for (const junk of ['!!', '#junk', 'AAAA', '=', ' ', '.x']) {
    const sig = `${VECTOR.signature}${junk}`;
    expect([
      junk,
      code(() => verifyWebhook(VECTOR.secret, headers({ 'webhook-signature': sig }), VECTOR.body, { now: AT })),
    ]).toEqual([
      junk,
      junk === ' ' ? 'accepted' : 'no_matching_signature', // a trailing space only separates entries
    ]);
  }
});

test('a rotation: one v1 signature per secret, space-separated, each verifying alone', () => {
  const next = `whsec_${Buffer.from('the-next-secret-of-24-byt').toString('base64')}`;
  const h = webhookHeaders([VECTOR.secret, next], VECTOR.id, VECTOR.timestamp, VECTOR.body);
  const [first, second] = h['webhook-signature'].split(' ');
  expect(first).toBe(VECTOR.signature);
  expect(second).toBe(signWebhook(next, VECTOR.id, VECTOR.timestamp, VECTOR.body));
  expect(webhookHeaders(`${VECTOR.secret}  ${next}`, VECTOR.id, VECTOR.timestamp, VECTOR.body)).toEqual(h);
  for (const secret of [VECTOR.secret, next]) {
    expect(code(() => verifyWebhook(secret, h, VECTOR.body, { now: AT }))).toBe('accepted');
  }
  expect(webhookSecretListProblem(`${VECTOR.secret} whsec_short`)).toBe(
    'secret 2 of 2 must be whsec_ followed by base64',
  );
  expect(webhookSecretListProblem(`${VECTOR.secret} ${next}`)).toBeUndefined();
});
