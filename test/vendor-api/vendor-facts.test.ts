/**
 * Vendor values live in two homes, told apart by their names: documented-values.ts for what
 * the vendor's documentation states, assumed-values.ts for what reelflow assumes where it is
 * silent (the assumed response shapes, with zod, are assumed-shapes.ts). Both are zod-free,
 * so workflow code imports them, and no other module of src/ or tools/ carries a copy.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { reachableFrom, tsFiles } from '../support/import-graph';
import { DEFAULT_LIMITS } from '../../src/emulator/context';
import * as assumed from '../../src/vendor-api/assumed-values';
import * as documented from '../../src/vendor-api/documented-values';
import { DEFAULT_POLICIES } from '../../src/contract/poll-policy';

const ROOT = path.resolve(__dirname, '../..');
const DOCUMENTED = 'src/vendor-api/documented-values.ts';
const ASSUMED = 'src/vendor-api/assumed-values.ts';
const HOMES = [DOCUMENTED, ASSUMED];

test('the homes load no package at all (no zod): workflow code imports them', () => {
  const reached = (home: string) => [...reachableFrom(path.join(ROOT, home))];
  expect(reached(ASSUMED).filter((r) => r.startsWith('pkg:'))).toEqual([]);
  expect(
    reached(ASSUMED)
      .map((f) => path.relative(ROOT, f))
      .sort(),
  ).toEqual([...HOMES].sort());
  expect(reached(DOCUMENTED).map((f) => path.relative(ROOT, f))).toEqual([DOCUMENTED]);
});

test('each home holds its own kind: no value is in both', () => {
  const both = Object.keys(documented).filter((name) => name in assumed);
  expect(both).toEqual([]);
});

test("the documented values are the spec's", () => {
  expect(documented).toMatchObject({
    GETASSET_MAX_PER_SECOND: 10,
    GETASSET_MIN_INTERVAL_MS: 500,
    MAX_REVIEW_BATCH: 50,
    GROUP_NAME_MAX: 50,
    GROUP_QUOTA: 100,
    DEFAULT_PAGE_SIZE: 20,
    ORIGINAL_URL_VALIDITY_MS: 24 * 3_600_000,
    SIGNED_ASSET_URL_VALIDITY_MS: 12 * 3_600_000,
    ERASE_UNIT_PRICE: 0.000015,
  });
  expect(assumed.MIN_QUERY_INTERVAL_MS).toEqual({ asset: 500, review: 1_000, generation: 1_000, erase: 1_000 });
});

test('the poll policies and the emulator take their limits from there', () => {
  for (const kind of ['asset', 'review', 'generation', 'erase'] as const) {
    expect(DEFAULT_POLICIES[kind].minMs).toBe(assumed.MIN_QUERY_INTERVAL_MS[kind]);
  }
  expect(DEFAULT_LIMITS).toMatchObject({
    getAssetPerSecond: documented.GETASSET_MAX_PER_SECOND,
    groupQuota: documented.GROUP_QUOTA,
  });
});

/** Literal copies of the facts as they used to be written around the tree. */
const COPIES: [string, RegExp][] = [
  ['erase price', /0\.000015/],
  ['24 h URL validity', /24 \* (60 \* 60 \* 1000|3_600_000)/],
  ['12 h URL validity', /12 \* (60 \* 60 \* 1000|3_600_000)/],
  ['GetAsset minimum interval', /minMs: 500\b|'assets\.GetAsset': 500\b/],
  ['GetAsset limit', /getAssetPerSecond: 10\b|LIMIT_PER_SECOND = 10\b|getAssetRate <= 10\b/],
  ['review batch limit', /(BATCH|URLS) = 50\b|\[1, 50\]/],
  ['group name limit', /GROUP_NAME\w* = 50\b/],
  [
    'terminal states',
    /\[\s*'SUCCESS',\s*'FAILURE'\s*\]|\[\s*'completed',\s*'failed',\s*'cancelled'\s*\]|\[\s*'succeeded',\s*'failed'|\[\s*'Active',\s*'Failed'/,
  ],
];

test.each(COPIES)('no module but the homes writes the %s', (_, pattern) => {
  const offenders = [...tsFiles(ROOT, 'src'), ...tsFiles(ROOT, 'tools')]
    .filter((f) => !HOMES.includes(f))
    .filter((f) => pattern.test(readFileSync(path.join(ROOT, f), 'utf8')));
  expect(offenders).toEqual([]);
});
