/** The doctor's output: ✓/✗ lines with the fix under each ✗, the --json document, and how a probe answer is judged. */
import { checksJson, formatChecks, type CheckResult } from '../../src/workers/doctor';
import { judgeProbe } from '../../src/workers/doctor/vendor-probe';

const ok: CheckResult = { id: 'codec', title: 'codec keys', ok: true, detail: 'off' };
const bad: CheckResult = {
  id: 'vendor.default.erase',
  title: 'vendor erase (profile default)',
  ok: false,
  detail: '/api/v1/svc-tasks/{id} is not a vendor endpoint (bare HTTP 404)',
  fix: 'VENDOR_PATH_WORD is "svc": set it to …',
};

test('a ✓ is one line; a ✗ is followed by its fix; the last line counts the failures', () => {
  expect(formatChecks([ok, bad])).toEqual([
    '✓ codec keys: off',
    '✗ vendor erase (profile default): /api/v1/svc-tasks/{id} is not a vendor endpoint (bare HTTP 404)',
    '    fix: VENDOR_PATH_WORD is "svc": set it to …',
    '1 of 2 checks failed',
  ]);
  expect(formatChecks([ok]).at(-1)).toBe('all 1 checks passed');
});

const warned: CheckResult = {
  id: 'tenants.profiles',
  title: 'tenant credential profiles',
  ok: true,
  detail: 'tenant acme may spend on every credential profile',
  fix: 'list its profiles',
  warning: true,
};

test('a warning is shown with ! and its fix, and counted apart from the failures', () => {
  expect(formatChecks([ok, warned])).toEqual([
    '✓ codec keys: off',
    '! tenant credential profiles: tenant acme may spend on every credential profile',
    '    fix: list its profiles',
    'all 2 checks passed, 1 with a warning',
  ]);
  expect(formatChecks([bad, warned]).at(-1)).toBe('1 of 2 checks failed, 1 with a warning');
});

test('--json: ok only when every check passed, the failures and warnings counted, each check whole', () => {
  expect(checksJson([ok, bad])).toEqual({ ok: false, failed: 1, warnings: 0, checks: [ok, bad] });
  expect(checksJson([ok])).toEqual({ ok: true, failed: 0, warnings: 0, checks: [ok] });
  expect(checksJson([ok, warned])).toEqual({ ok: true, failed: 0, warnings: 1, checks: [ok, warned] });
});

describe('an unknown-id query', () => {
  const json = 'application/json; charset=utf-8';
  test("a 404 with the interface's own error body means the path is right", () => {
    expect(judgeProbe(404, json, '{"code":404,"message":"erase task x not found"}').kind).toBe('answered');
    const upstream = '{"error":{"code":"ResourceNotFound","message":"x","param":null,"type":null}}';
    expect(judgeProbe(404, json, upstream).kind).toBe('answered');
  });
  test('a bare 404 (text, HTML, empty, or JSON of another shape) means no such path', () => {
    expect(judgeProbe(404, 'text/plain', '404 page not found').kind).toBe('no-route');
    expect(judgeProbe(404, 'text/html', '<h1>Not Found</h1>').kind).toBe('no-route');
    expect(judgeProbe(404, '', '').kind).toBe('no-route');
    expect(judgeProbe(404, json, '{"detail":"Not Found"}').kind).toBe('no-route');
  });
  test('401 and 403 are the credentials; anything else is unexpected', () => {
    expect(judgeProbe(401, json, '{}').kind).toBe('auth');
    expect(judgeProbe(403, json, '{}').kind).toBe('auth');
    expect(judgeProbe(500, json, '{"code":500,"message":"x"}').kind).toBe('unexpected');
  });
});
