/** The proof of a task id an operator gives to resolveCreate (pure): the offers' checks, and the read-after-write grace. */
import type { OfferedTaskFacts } from '../../src/contract/offers';
import { operatorRefusal, type OperatorIdCheck } from '../../src/workflows/lib/callbacks/operator-proof';
import { resumeProblem } from '../../src/workflows/lib/resume-check';

const window = { fromMs: Date.parse('2026-01-01T10:00:00Z'), toMs: Date.parse('2026-01-01T10:00:05Z') };
const found = (f: Partial<OfferedTaskFacts> = {}): OfferedTaskFacts => ({
  found: true,
  id: 'cgt-1',
  model: 'm-1',
  createdAtSec: Date.parse('2026-01-01T10:00:02Z') / 1000,
  claimedBy: [],
  ...f,
});
const check = (c: Partial<OperatorIdCheck>): OperatorIdCheck => ({
  taskId: 'cgt-1',
  facts: found(),
  expect: { model: 'm-1' },
  window,
  notFoundGraceMs: 60_000,
  nowMs: window.toMs + 1_000,
  ...c,
});
const notFound: OfferedTaskFacts = { found: false, notFound: 'task not found', claimedBy: [] };

test('a task of this kind, created in the attempt, unclaimed: accepted', () => {
  expect(operatorRefusal(check({}))).toBeUndefined();
});

test('a 404 within the grace after the attempt says when to try again; after it, unknown at the vendor', () => {
  expect(operatorRefusal(check({ facts: notFound, nowMs: window.toMs + 15_200 }))).toBe(
    'task cgt-1 is not found at the vendor yet (it may lag just after a create); try again in 45 s',
  );
  const late = operatorRefusal(check({ facts: notFound, nowMs: window.toMs + 60_001 }));
  expect(late).toBe('task cgt-1 is unknown at the vendor (task not found); check the id in the vendor console');
});

test('every fact that refutes the id is named: model, window, claim', () => {
  const why = operatorRefusal(
    check({
      facts: found({ model: 'm-2', createdAtSec: window.fromMs / 1000 - 3_600, claimedBy: ['other-pipeline'] }),
    }),
  );
  expect(why).toMatch(/^task cgt-1 is refused: /);
  expect(why).toContain('its model is m-2, this create asked for m-1');
  expect(why).toContain("outside this attempt's");
  expect(why).toContain('claimed by pipeline other-pipeline');
});

test('a resume is honoured only after a continue-as-new of the same workflow type', () => {
  const facts = { found: true as const, status: 'CONTINUED_AS_NEW', workflowType: 'videoPipeline' };
  expect(resumeProblem(facts, 'r1', 'videoPipeline')).toBeUndefined();
  expect(resumeProblem({ ...facts, status: 'FAILED' }, 'r1', 'videoPipeline')).toBe(
    'resume: the run it continues (r1) closed as FAILED, not by continue-as-new',
  );
  expect(resumeProblem({ ...facts, workflowType: 'notifyWebhook' }, 'r1', 'videoPipeline')).toMatch(
    /^resume: .* is a notifyWebhook, not a videoPipeline$/,
  );
  expect(resumeProblem({ found: false }, 'r1', 'videoPipeline')).toMatch(/^resume: .* cannot be found/);
});
