/** The codec's strict mode, pure: its variable, the tag on plaintext payloads, the converter's mark. */
import { randomBytes } from 'node:crypto';
import { defaultPayloadConverter } from '@temporalio/common';
import { loadDataConverter } from '@temporalio/common/lib/internal-non-workflow/data-converter-helpers';
import { codecDataConverterOf, CodecConfigError, codecFromEnv, workerCodecFromEnv } from '../../src/codec';
import { isPlaintext, PLAINTEXT_METADATA_KEY } from '../../src/codec/plaintext-mark';
import { payloadConverter } from '../../src/codec/payload-converter';

const KEYS = { REELFLOW_CODEC_KEYS: `kid1:${randomBytes(32).toString('base64')}` };
const strict = () => workerCodecFromEnv({ ...KEYS, REELFLOW_CODEC_STRICT: '1' })!;

test('REELFLOW_CODEC_STRICT=1 without the codec refuses to start, naming both variables', () => {
  const err = (() => {
    try {
      workerCodecFromEnv({ REELFLOW_CODEC_STRICT: '1' });
    } catch (e) {
      return e;
    }
  })();
  expect(err).toBeInstanceOf(CodecConfigError);
  expect((err as Error).message).toMatch(/REELFLOW_CODEC_STRICT.*REELFLOW_CODEC_KEYS/);
  expect(() => workerCodecFromEnv({ ...KEYS, REELFLOW_CODEC_STRICT: 'yes' })).toThrow(
    /REELFLOW_CODEC_STRICT must be 1/,
  );
  expect(workerCodecFromEnv({ ...KEYS, REELFLOW_CODEC_STRICT: '0' })!.strict).toBe(false);
  expect(workerCodecFromEnv({})).toBeUndefined();
});

test("a worker's codec is strict by default once a key is configured; REELFLOW_CODEC_STRICT=0 opts out", () => {
  expect(workerCodecFromEnv(KEYS)!.strict).toBe(true);
  expect(workerCodecFromEnv({ ...KEYS, REELFLOW_CODEC_STRICT: '' })!.strict).toBe(true);
  expect(workerCodecFromEnv({ ...KEYS, REELFLOW_CODEC_STRICT: '0' })!.strict).toBe(false);
  // Clients and the codec server never refuse: their codec is not the worker's.
  expect(codecFromEnv(KEYS)!.strict).toBe(false);
});

test('a strict codec tags plaintext payloads only; the converter marks them, invisibly', async () => {
  const codec = strict();
  const plain = defaultPayloadConverter.toPayload({ step: 'generation', attempt: 1 });
  const [encrypted] = await codec.encode([plain]);
  const [fromPlain, fromEncrypted] = await codec.decode([plain, encrypted]);
  expect(fromPlain.metadata?.[PLAINTEXT_METADATA_KEY]).toBeDefined();
  expect(fromEncrypted.metadata?.[PLAINTEXT_METADATA_KEY]).toBeUndefined();
  const marked = payloadConverter.fromPayload<object>(fromPlain);
  expect(isPlaintext(marked)).toBe(true);
  expect(isPlaintext(payloadConverter.fromPayload(fromEncrypted))).toBe(false);
  // The value is unchanged otherwise: same JSON, same keys (old histories decode alike).
  expect(JSON.stringify(marked)).toBe(JSON.stringify({ step: 'generation', attempt: 1 }));
  expect(Object.keys(marked)).toEqual(['step', 'attempt']);
  // Scalars stay scalars.
  expect(payloadConverter.fromPayload((await codec.decode([defaultPayloadConverter.toPayload('x')]))[0])).toBe('x');
});

test('the tag never leaves the process: encode drops it, and a sender cannot set it inside ciphertext', async () => {
  const codec = strict();
  const [tagged] = await codec.decode([defaultPayloadConverter.toPayload({ a: 1 })]);
  const [roundTrip] = await codec.decode(await codec.encode([tagged]));
  expect(roundTrip.metadata?.[PLAINTEXT_METADATA_KEY]).toBeUndefined();
  // A lenient codec (clients, the codec server) never tags.
  const lenient = codecFromEnv(KEYS)!;
  const [untouched] = await lenient.decode([defaultPayloadConverter.toPayload({ a: 1 })]);
  expect(untouched.metadata?.[PLAINTEXT_METADATA_KEY]).toBeUndefined();
});

test("the codec's DataConverter loads the marking payload converter outside the sandbox too", () => {
  const loaded = loadDataConverter(codecDataConverterOf(strict()));
  expect(loaded.payloadConverter).toBe(payloadConverter);
});
