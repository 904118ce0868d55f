/**
 * A seeded fuzz of 10,000 mutated definitions, offline (no server, nothing started). Each
 * is either refused with one DefinitionError whose issues each name a field and what is
 * wrong, or accepted and then passes every check the workflow and the vendor client apply
 * at start (start-checks.ts). REELFLOW_FUZZ_SEED replays another sequence.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { DefinitionError, parseDefinition } from '../../src/definition/definition';
import { mulberry32 } from '../../src/emulator/prng';
import { startChecks } from './start-checks';

const SEED = Number(process.env.REELFLOW_FUZZ_SEED ?? 20_251_126);
const RUNS = 10_000;
const ROOT = path.resolve(__dirname, '../..');
const example = (name: string): unknown => JSON.parse(readFileSync(path.join(ROOT, 'examples', name), 'utf8'));

const RICH = {
  name: 'rich',
  review: {
    media: ['https://media.example.com/a.png', 'https://media.example.com/b.mp4', 'https://media.example.com/c.mp3'],
    groupId: 'group-7',
    groupSource: 'real_person',
    requireAllPassed: false,
  },
  assets: {
    group: { id: 'group-7' },
    items: [
      { name: 'hero', fromReview: 0 },
      { name: 'clip', fromReview: 1 },
      { name: 'logo', url: 'https://media.example.com/logo.webp', type: 'image' },
      { name: 'bgm', url: 'https://media.example.com/theme.wav', type: 'Audio' },
    ],
  },
  generation: {
    model: 'video-model-1',
    content: [
      { type: 'text', text: 'a product turning on a table', role: 'prompt' },
      { type: 'image_url', image_url: { url: 'ref:review/0' }, role: 'first_frame' },
      { type: 'image_url', image_url: { url: 'asset://asset-abc' }, role: 'last_frame' },
      { type: 'video_url', video_url: { url: 'ref:asset/clip' }, role: 'reference_video' },
      { type: 'audio_url', audio_url: { url: 'ref:asset/bgm' } },
    ],
    generate_audio: true,
    ratio: 'adaptive',
    duration: -1,
    watermark: false,
    resolution: '4k',
    seed: 42,
  },
  erase: true,
  options: {
    profile: 'team-a',
    callbacks: true,
    ambiguousCreate: { review: 'ask', generation: 'resubmit', erase: 'ask' },
    deadlines: {
      pipeline: '6h',
      assetStuck: 90_000,
      assetPending: '15m',
      vendorTask: '2h',
      callbackGrace: '1s',
      createAttempt: '90s',
      notFoundGrace: '2m',
    },
    archive: false,
    historyEventsBeforeContinueAsNew: 50,
  },
};

const LOCAL = {
  review: { media: ['http://127.0.0.1:4010/media/a.png'], assetType: 'Image' },
  assets: {
    group: { name: '素材-组_1', description: 'local' },
    items: [{ name: 'a', url: 'http://localhost:4010/b.mov', type: 'video' }],
  },
  generation: { model: 'm', content: [{ type: 'video_url', video_url: { url: 'ref:asset/a' } }] },
  options: { allowPrivateHosts: true },
};

const BASES = [example('pipeline.json'), example('generation-only.json'), example('review-only.json'), RICH, LOCAL];

const STRINGS = [
  '',
  ' ',
  'x',
  'Photo',
  'image',
  'VIDEO',
  'audio',
  '0s',
  '-1s',
  '5ms',
  '1s',
  '999ms',
  '90s',
  '2h',
  '8761h',
  'soon',
  'adaptive',
  'keep_ratio',
  '4k',
  '720p',
  '16:9',
  'first_frame',
  'real_person',
  'resubmit',
  'ask',
  'default',
  'a b',
  'a\nb',
  '素材',
  'x'.repeat(61),
  'http://',
  'https://',
  'Asset://',
  'asset://a-1',
  'ASSET://b',
  'https://u:p@media.example.com/a.png',
  'https://media.example.com/a b.png',
  'https://media.example.com/a',
  'https://media.example.com/a.txt',
  'https://media.example.com/a.png',
  'https://media.example.com/v.mp4',
  'https://media.example.com/s.mp3',
  'http://127.0.0.1:9/a.png',
  'http://localhost/a.png',
  'http://[::1]/v.mp4',
  'http://10.0.0.1/a.png',
  'http://169.254.169.254/a.png',
  'http://[::ffff:127.0.0.1]/a.png',
  'http://999.1.1.1/a.png',
  'http://intranet/a.png',
  'data:image/png;base64,AAAA',
  'ref:review/0',
  'ref:review/2',
  'ref:review/9',
  'ref:asset/hero',
  'ref:asset/bgm',
  'ref:asset/nope',
  'ref:review/x',
  'ftp://media.example.com/a.png',
  'https://media.example.com\\a.png',
  'https://média.example.com/a.png',
  'https://media.example.com:0/a.png',
  'https://media.example.com:8443/a.jpg?sig=1',
];
const NUMBERS = [0, -0, 1, -1, -2, 0.5, 1.5, 5, 49, 50, 999, 1000, 40_000, 40_001, 1e21, -1e21, 2 ** 53 + 2];
const OTHERS: unknown[] = [
  true,
  false,
  null,
  [],
  {},
  [1],
  { x: 1 },
  { url: 'https://media.example.com/a.png' },
  ['https://media.example.com/a.png'],
];
const KEYS = [
  'name',
  'review',
  'media',
  'assetType',
  'groupId',
  'groupSource',
  'requireAllPassed',
  'assets',
  'group',
  'id',
  'description',
  'items',
  'fromReview',
  'url',
  'type',
  'generation',
  'model',
  'content',
  'text',
  'image_url',
  'video_url',
  'audio_url',
  'role',
  'generate_audio',
  'ratio',
  'duration',
  'watermark',
  'resolution',
  'seed',
  'callback_url',
  'erase',
  'options',
  'profile',
  'callbacks',
  'ambiguousCreate',
  'deadlines',
  'pipeline',
  'assetStuck',
  'assetPending',
  'vendorTask',
  'callbackGrace',
  'createAttempt',
  'notFoundGrace',
  'archive',
  'historyEventsBeforeContinueAsNew',
  'allowPrivateHosts',
  'bogus',
  'URL',
  'Name',
];

type Json = unknown;
type Path = (string | number)[];

/** Every node's path, the root included. */
function paths(node: Json, at: Path = [], out: Path[] = []): Path[] {
  out.push(at);
  if (Array.isArray(node)) node.forEach((v, i) => paths(v, [...at, i], out));
  else if (node && typeof node === 'object') for (const [k, v] of Object.entries(node)) paths(v, [...at, k], out);
  return out;
}

function at(root: Json, p: Path): Json {
  return p.reduce<Json>((n, k) => (n as Record<string | number, Json>)[k], root);
}

class Mutator {
  constructor(private readonly rand: () => number) {}

  pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.rand() * xs.length)];
  }

  value(): Json {
    const r = this.rand();
    return r < 0.6 ? this.pick(STRINGS) : r < 0.85 ? this.pick(NUMBERS) : structuredClone(this.pick(OTHERS));
  }

  tweak(v: Json): Json {
    if (typeof v === 'string') {
      return this.pick([
        v.toUpperCase(),
        v.toLowerCase(),
        `${v} `,
        v.slice(0, -1),
        `${v}.png`,
        `ref:${v}`,
        v.replace(/^https?/, 'http'),
        '',
      ]);
    }
    if (typeof v === 'number') return this.pick([-v, 0, v + 0.5, v * 1000, -1]);
    if (typeof v === 'boolean') return !v;
    return this.value();
  }

  /** One mutation somewhere in `root` (a copy is returned; the root may be replaced). */
  mutate(root: Json): Json {
    const all = paths(root);
    const p = this.pick(all);
    if (p.length === 0) return this.rand() < 0.9 ? root : this.value();
    const parent = at(root, p.slice(0, -1)) as Record<string | number, Json> & Json[];
    const key = p[p.length - 1];
    const node = parent[key];
    const op = this.rand();
    if (op < 0.2) {
      if (Array.isArray(parent)) parent.splice(key as number, 1);
      else delete parent[key];
    } else if (op < 0.45) parent[key] = this.value();
    else if (op < 0.7) parent[key] = this.tweak(node);
    else if (op < 0.85 && node && typeof node === 'object' && !Array.isArray(node))
      (node as Record<string, Json>)[this.pick(KEYS)] = this.value();
    else if (op < 0.95 && Array.isArray(node) && node.length > 0) node.push(structuredClone(this.pick(node)));
    else {
      const o = (root as { options?: Record<string, Json> }).options;
      if (o && typeof o === 'object') o.allowPrivateHosts = !o.allowPrivateHosts;
      else parent[key] = this.tweak(node);
    }
    return root;
  }
}

/** zod's own wording, which says neither what was expected nor what was found. */
const GENERIC =
  /^(Invalid input|Invalid string|Invalid option|Invalid discriminator|Invalid|Too small|Too big|Unrecognized key|Required|Expected|matches none)/;
const ROOT_MESSAGES = /^(must be an object|at least one of review, assets, generation)/;

function checkRefusal(err: unknown, def: Json): void {
  const where = () => `seed ${SEED}: ${JSON.stringify(def).slice(0, 400)}`;
  if (!(err instanceof DefinitionError)) throw new Error(`${where()}: crashed with ${String(err)}`);
  expect(err.issues.length).toBeGreaterThan(0);
  const seen = new Set<string>();
  for (const { path: p, message } of err.issues) {
    const line = `${p}: ${message}`;
    if (GENERIC.test(message) || message.length < 8) throw new Error(`${where()}: generic message "${line}"`);
    if (p === '' && !ROOT_MESSAGES.test(message)) throw new Error(`${where()}: no field named in "${line}"`);
    if (/[\x00-\x1f]/.test(line)) throw new Error(`${where()}: a control character in "${JSON.stringify(line)}"`);
    if (seen.has(p)) throw new Error(`${where()}: two issues for ${p}`);
    seen.add(p);
  }
}

test(`${RUNS} mutated definitions: refused clearly, or accepted and startable`, () => {
  const rand = mulberry32(SEED);
  const m = new Mutator(rand);
  const outcome = { accepted: 0, refused: 0, messages: new Set<string>() };
  for (let run = 0; run < RUNS; run++) {
    let def: Json = structuredClone(m.pick(BASES));
    const mutations = 1 + Math.floor(rand() * 3);
    for (let i = 0; i < mutations; i++) def = m.mutate(def);
    let parsed;
    try {
      parsed = parseDefinition(def);
    } catch (err) {
      checkRefusal(err, def);
      outcome.refused++;
      for (const i of (err as DefinitionError).issues)
        outcome.messages.add(i.message.replace(/\d+|"[^"]*"|host \S+/g, '…'));
      continue;
    }
    try {
      startChecks(def, parsed);
    } catch (err) {
      throw new Error(
        `seed ${SEED}, run ${run}: accepted at the door, but at start: ${(err as Error).message}\n${JSON.stringify(def)}`,
      );
    }
    outcome.accepted++;
  }
  // The fuzz reaches both sides, and many distinct refusals.
  expect(outcome.accepted).toBeGreaterThan(RUNS * 0.1);
  expect(outcome.refused).toBeGreaterThan(RUNS * 0.3);
  expect(outcome.messages.size).toBeGreaterThan(40);
});
