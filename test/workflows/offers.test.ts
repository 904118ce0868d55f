/** The proof a task id offered by a callback must pass (pure), and log-safe text. */
import type { OfferedTaskFacts } from '../../src/contract/offers';
import { CREATED_AT_SLACK_MS, describeOffers, idProblem, judgeOffer } from '../../src/workflows/lib/callbacks/offers';
import { printable } from '../../src/contract/printable';

const window = { fromMs: Date.parse('2026-01-01T10:00:00Z'), toMs: Date.parse('2026-01-01T10:00:05Z') };
const sec = (iso: string) => Date.parse(iso) / 1000;
const facts = (f: Partial<OfferedTaskFacts> = {}): OfferedTaskFacts => ({
  found: true,
  id: 'cgt-1',
  model: 'm-1',
  createdAtSec: sec('2026-01-01T10:00:02Z'),
  claimedBy: [],
  ...f,
});

test('a task that agrees with the create, in the window, unclaimed: proven', () => {
  expect(judgeOffer('cgt-1', facts(), { model: 'm-1' }, window)).toEqual([]);
  // Within the slack on either side, and answers without model or created_at (nothing to compare).
  expect(
    judgeOffer(
      'cgt-1',
      facts({ createdAtSec: (window.fromMs - CREATED_AT_SLACK_MS) / 1000 }),
      { model: 'm-1' },
      window,
    ),
  ).toEqual([]);
  expect(judgeOffer('cgt-1', facts({ createdAtSec: (window.toMs + CREATED_AT_SLACK_MS) / 1000 }), {}, window)).toEqual(
    [],
  );
  expect(judgeOffer('cgt-1', { found: true, claimedBy: [] }, { model: 'm-1' }, window)).toEqual([]);
});

test('each failed check is named, all of them', () => {
  const reasons = judgeOffer(
    'cgt-1',
    facts({ id: 'cgt-2', model: 'm-2', createdAtSec: sec('2026-01-01T09:59:00Z'), claimedBy: ['p1', 'p9'] }),
    { model: 'm-1' },
    window,
  );
  expect(reasons).toEqual([
    'the vendor answered for task cgt-2',
    'its model is m-2, this create asked for m-1',
    "created 2026-01-01T09:59:00Z, outside this attempt's 2026-01-01T10:00:00Z to 2026-01-01T10:00:05Z (± 30 s)",
    'claimed by pipeline p1, p9',
  ]);
  expect(judgeOffer('x', facts({ createdAtSec: sec('2026-01-01T10:01:00Z') }), {}, window)[1]).toMatch(
    /^created 2026-01-01T10:01:00Z, outside/,
  );
});

test('the vendor does not know it', () => {
  expect(
    judgeOffer(
      'nope',
      { found: false, notFound: 'generation.get: rejected (404)\nnot found', claimedBy: [] },
      {},
      window,
    ),
  ).toEqual(['the vendor does not know it (generation.get: rejected (404)\\nnot found)']);
});

test('review: the task must hold exactly this batch’s media', () => {
  const urls = ['https://m/a.png', 'https://m/b.png'];
  const review = (f: Partial<OfferedTaskFacts>) => ({ found: true, id: 'r-1', claimedBy: [], ...f });
  expect(judgeOffer('r-1', review({ itemCount: 2, sourceUrls: urls }), { urls }, window)).toEqual([]);
  expect(judgeOffer('r-1', review({ itemCount: 2 }), { urls }, window)).toEqual([]); // not finished: no items yet
  expect(
    judgeOffer('r-1', review({ itemCount: 3, sourceUrls: [...urls, 'https://m/c.png'] }), { urls }, window),
  ).toEqual(['it holds 3 media, this batch submitted 2', 'it reviews 1 media this batch did not submit']);
});

test('ids: only what a vendor task id looks like is queried', () => {
  expect(idProblem('cgt-20250101_x.y:z')).toBeUndefined();
  for (const bad of ["x' OR WorkflowId != '", 'a b', 'a\nb', '', 'x'.repeat(129), 'é'])
    expect(idProblem(bad)).toMatch(/not a vendor task id/);
});

test('the operator sees each offered id and what became of it, escaped', () => {
  expect(
    describeOffers(
      [
        { id: 't-1', state: 'refused', why: 'claimed by pipeline p1' },
        { id: 'bad\nid', state: 'refused', why: 'not a vendor task id' },
        { id: 't-3', state: 'unchecked', why: 'could not be checked: timeout' },
        { id: 't-4', state: 'pending' },
      ],
      2,
    ),
  ).toBe(
    't-1 (refused: claimed by pipeline p1) | bad\\nid (refused: not a vendor task id) | t-3 (could not be checked: timeout) | ' +
      't-4 (being checked) | 2 further id(s) not checked (limit 8 per attempt)',
  );
});

test('printable: control characters, line separators and backslashes escaped; long text cut', () => {
  expect(printable('a\nb\rc\td\u0000e\u007ff\u0085g\u2028h\u2029i\\j')).toBe(
    'a\\nb\\rc\\td\\u0000e\\u007ff\\u0085g\\u2028h\\u2029i\\\\j',
  );
  expect(printable('ünïcödé ok')).toBe('ünïcödé ok');
  expect(printable('x'.repeat(10), 4)).toBe('xxxx…');
});
