/** The payload codec's keys and encryption (pure: no server). */
import { randomBytes } from 'node:crypto';
import {
  ApplicationFailure,
  defaultPayloadConverter,
  METADATA_ENCODING_KEY,
  ValueError,
  type Payload,
} from '@temporalio/common';
import {
  decodeOptionalFailureToOptionalError,
  encodeErrorToFailure,
} from '@temporalio/common/lib/internal-non-workflow/codec-helpers';
import { loadDataConverter } from '@temporalio/common/lib/internal-non-workflow/data-converter-helpers';
import { failureConverter } from '../../src/codec/failure-converter';
import {
  CodecConfigError,
  codecDataConverter,
  codecEnv,
  codecFromEnv,
  ENCODING,
  EncryptionCodec,
  loadCodecKeys,
  METADATA_KEY_ID,
} from '../../src/codec';

const K1 = randomBytes(32).toString('base64');
const K2 = randomBytes(32).toString('base64');
const PROMPT = 'a secret product launch, shot at dawn';

function codec(env: Record<string, string>): EncryptionCodec {
  const c = codecFromEnv(env);
  if (!c) throw new Error('codec expected');
  return c;
}

function configError(env: Record<string, string | undefined>): CodecConfigError {
  try {
    loadCodecKeys(env);
  } catch (err) {
    if (err instanceof CodecConfigError) return err;
    throw err;
  }
  throw new Error('expected a CodecConfigError');
}

const text = (b?: Uint8Array | null) => Buffer.from(b ?? []).toString('utf8');

describe('keys from the environment', () => {
  test('off when neither variable is set (or blank)', () => {
    expect(loadCodecKeys({})).toBeUndefined();
    expect(loadCodecKeys({ REELFLOW_CODEC_KEYS: ' ' })).toBeUndefined();
    expect(codecDataConverter({})).toBeUndefined();
  });

  test('one key needs no key id; several need one, and it must be listed', () => {
    expect(loadCodecKeys({ REELFLOW_CODEC_KEYS: `kid1:${K1}` })?.currentKeyId).toBe('kid1');
    const both = loadCodecKeys({ REELFLOW_CODEC_KEYS: `kid1:${K1}, kid2:${K2}`, REELFLOW_CODEC_KEY_ID: 'kid2' });
    expect(both?.keyIds).toEqual(['kid1', 'kid2']);
    expect(both?.currentKeyId).toBe('kid2');
    const several = configError({ REELFLOW_CODEC_KEYS: `kid1:${K1},kid2:${K2}` });
    expect(several.variable).toBe('REELFLOW_CODEC_KEY_ID');
    const unlisted = configError({ REELFLOW_CODEC_KEYS: `kid1:${K1}`, REELFLOW_CODEC_KEY_ID: 'kid9' });
    expect(unlisted.message).toMatch(/REELFLOW_CODEC_KEY_ID names "kid9", which REELFLOW_CODEC_KEYS does not list/);
  });

  test('bad entries name the variable and the key id, never the key', () => {
    const short = randomBytes(16).toString('base64');
    const cases: [Record<string, string>, RegExp][] = [
      [{ REELFLOW_CODEC_KEY_ID: 'kid1' }, /REELFLOW_CODEC_KEYS is required when REELFLOW_CODEC_KEY_ID is set/],
      [{ REELFLOW_CODEC_KEYS: K1 }, /REELFLOW_CODEC_KEYS entry 1: must be "<key id>:<base64 key>"/],
      [{ REELFLOW_CODEC_KEYS: `kid1:${short}` }, /key id "kid1": the key must be the base64 of 32 random bytes/],
      [{ REELFLOW_CODEC_KEYS: `kid1:${K1.slice(1)}` }, /key id "kid1"/],
      [{ REELFLOW_CODEC_KEYS: `kid1:${K1},kid1:${K2}` }, /lists key id "kid1" twice/],
    ];
    for (const [env, message] of cases) {
      const err = configError(env);
      expect(err.message).toMatch(message);
      for (const secret of [K1, K2, short, K1.slice(1)]) expect(err.message).not.toContain(secret);
    }
  });

  test('codecEnv passes on only the codec variables', () => {
    expect(codecEnv({ REELFLOW_CODEC_KEYS: 'x', PATH: '/bin', REELFLOW_CODEC_KEY_ID: 'y' })).toEqual({
      REELFLOW_CODEC_KEYS: 'x',
      REELFLOW_CODEC_KEY_ID: 'y',
    });
  });
});

describe('AES-GCM payloads', () => {
  const plain = defaultPayloadConverter.toPayload({ prompt: PROMPT, url: 'https://cdn.example.com/v.mp4?sig=1' });

  test('encrypts the whole payload (metadata too) and decrypts it back', async () => {
    const c = codec({ REELFLOW_CODEC_KEYS: `kid1:${K1}` });
    const [enc] = await c.encode([plain]);
    expect(text(enc.metadata?.[METADATA_ENCODING_KEY])).toBe(ENCODING);
    expect(text(enc.metadata?.[METADATA_KEY_ID])).toBe('kid1');
    expect(Object.keys(enc.metadata ?? {}).sort()).toEqual([METADATA_ENCODING_KEY, METADATA_KEY_ID].sort());
    for (const needle of [PROMPT, 'https://', 'json/plain']) expect(text(enc.data)).not.toContain(needle);
    const [dec] = await c.decode([enc]);
    expect(defaultPayloadConverter.fromPayload(dec)).toEqual(defaultPayloadConverter.fromPayload(plain));
    // A fresh IV each time: the same payload never encrypts to the same bytes.
    const [again] = await c.encode([plain]);
    expect(Buffer.from(again.data!).equals(Buffer.from(enc.data!))).toBe(false);
  });

  test('payloads that are not encrypted pass through decode', async () => {
    const c = codec({ REELFLOW_CODEC_KEYS: `kid1:${K1}` });
    expect(await c.decode([plain])).toEqual([plain]);
  });

  test('rotation: encrypted with kid1, then kid2 current: both decode; without kid1 listed, the error names kid1', async () => {
    const before = codec({ REELFLOW_CODEC_KEYS: `kid1:${K1}` });
    const after = codec({ REELFLOW_CODEC_KEYS: `kid1:${K1},kid2:${K2}`, REELFLOW_CODEC_KEY_ID: 'kid2' });
    const [old] = await before.encode([plain]);
    const [fresh] = await after.encode([plain]);
    expect(text(fresh.metadata?.[METADATA_KEY_ID])).toBe('kid2');
    const decoded = await after.decode([old, fresh]);
    expect(decoded.map((p) => defaultPayloadConverter.fromPayload(p))).toEqual([
      defaultPayloadConverter.fromPayload(plain),
      defaultPayloadConverter.fromPayload(plain),
    ]);
    const onlyKid2 = codec({ REELFLOW_CODEC_KEYS: `kid2:${K2}` });
    const err = await onlyKid2.decode([old]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValueError);
    expect((err as Error).message).toMatch(/key id "kid1", which REELFLOW_CODEC_KEYS does not list \(listed: kid2\)/);
    expect((err as Error).message).not.toContain(K2);
  });

  test('a wrong key under the same id, a relabelled key id or altered bytes do not decrypt', async () => {
    const c = codec({ REELFLOW_CODEC_KEYS: `kid1:${K1},kid2:${K2}`, REELFLOW_CODEC_KEY_ID: 'kid1' });
    const [enc] = await c.encode([plain]);
    const wrongKey = codec({ REELFLOW_CODEC_KEYS: `kid1:${K2}` });
    await expect(wrongKey.decode([enc])).rejects.toThrow(/cannot decrypt a payload with key id "kid1"/);
    const relabelled: Payload = { ...enc, metadata: { ...enc.metadata, [METADATA_KEY_ID]: Buffer.from('kid2') } };
    await expect(c.decode([relabelled])).rejects.toThrow(/key id "kid2"/);
    const data = Buffer.from(enc.data!);
    data[20] ^= 1;
    await expect(c.decode([{ ...enc, data }])).rejects.toThrow(/altered/);
    const noId: Payload = { ...enc, metadata: { [METADATA_ENCODING_KEY]: Buffer.from(ENCODING) } };
    await expect(c.decode([noId])).rejects.toThrow(/without an encryption-key-id/);
  });
});

describe('failures', () => {
  const env = { REELFLOW_CODEC_KEYS: `kid1:${K1}` };
  const failure = () =>
    ApplicationFailure.create({
      type: 'GenerationFailed',
      message: `generation failed for "${PROMPT}"`,
      nonRetryable: true,
      details: [{ vendorCode: 'OutputVideoSensitiveContentDetected' }],
      cause: new Error(`vendor said no to https://media.example.com/x.png?sig=abc`),
    });
  const everyText = (v: unknown): string =>
    JSON.stringify(v, (_k, x: unknown) => (x instanceof Uint8Array ? text(x) : x));

  test("the codec's converter moves messages and stacks, the cause's too, into encrypted payloads", async () => {
    const converter = loadDataConverter(codecDataConverter(env));
    expect(converter.failureConverter).toBe(failureConverter);
    const proto = await encodeErrorToFailure(converter, failure());
    const shown = everyText(proto);
    for (const secret of [PROMPT, 'https://', 'sig=abc', 'OutputVideoSensitiveContentDetected']) {
      expect(shown).not.toContain(secret);
    }
    expect([proto.message, proto.cause?.message]).toEqual(['Encoded failure', 'Encoded failure']);
    expect(text(proto.encodedAttributes?.metadata?.[METADATA_ENCODING_KEY])).toBe(ENCODING);
    expect(proto.applicationFailureInfo?.type).toBe('GenerationFailed');

    const back = await decodeOptionalFailureToOptionalError(converter, proto);
    expect(back).toBeInstanceOf(ApplicationFailure);
    const app = back as ApplicationFailure;
    expect([app.type, app.nonRetryable, app.message]).toEqual([
      'GenerationFailed',
      true,
      `generation failed for "${PROMPT}"`,
    ]);
    expect(app.details).toEqual([{ vendorCode: 'OutputVideoSensitiveContentDetected' }]);
    expect(app.stack).toContain('codec.test');
    expect(app.cause?.message).toContain('https://media.example.com/x.png?sig=abc');
    // Without the keys the SDK says it cannot read it (the CLI turns this into its hint).
    await expect(decodeOptionalFailureToOptionalError(loadDataConverter(), proto)).rejects.toThrow(
      `Unknown encoding: ${ENCODING}`,
    );
  });
});
