import { createHmac } from 'node:crypto';
import { buildCallbackUrl, callbackToken, checkCallbackPath, type CallbackTarget } from '../../src/callbacks/token';

const secret = 'test-secret-0123456789abcdef';

/** The target of an authentic path, else null. */
function parseCallbackPath(key: string, pathname: string): CallbackTarget | null {
  const r = checkCallbackPath(key, pathname);
  return r.ok ? r.target : null;
}

describe('callbackToken', () => {
  test('is 32 lowercase hex chars and deterministic', () => {
    const t = callbackToken(secret, 'pipe-1.generation', 'generation', 1);
    expect(t).toMatch(/^[0-9a-f]{32}$/);
    expect(callbackToken(secret, 'pipe-1.generation', 'generation', 1)).toBe(t);
  });

  test('differs for a different workflow, step, attempt or secret', () => {
    const base = callbackToken(secret, 'wf', 'review-b0', 1);
    const others = [
      callbackToken(secret, 'wf2', 'review-b0', 1),
      callbackToken(secret, 'wf', 'review-b1', 1),
      callbackToken(secret, 'wf', 'review-b0', 2),
      callbackToken(`${secret}x`, 'wf', 'review-b0', 1),
    ];
    expect(new Set([base, ...others]).size).toBe(5);
  });

  test('the encoding is unambiguous: moving a separator between fields changes the token', () => {
    expect(callbackToken(secret, 'a/b', 'c', 1)).not.toBe(callbackToken(secret, 'a', 'b/c', 1));
    expect(callbackToken(secret, 'a\n1:b', 'c', 1)).not.toBe(callbackToken(secret, 'a', 'b\n1:c', 1));
    expect(callbackToken(secret, 'wf', 'step1', 1)).not.toBe(callbackToken(secret, 'wf', 'step', 11));
  });

  test('is not a bare HMAC of the concatenation (domain separated)', () => {
    const naive = createHmac('sha256', secret).update('wfgeneration1').digest('hex').slice(0, 32);
    expect(callbackToken(secret, 'wf', 'generation', 1)).not.toBe(naive);
  });

  test('rejects an empty secret and a bad attempt', () => {
    expect(() => callbackToken('', 'wf', 'erase', 1)).toThrow(/secret/);
    expect(() => callbackToken(secret, 'wf', 'erase', -1)).toThrow(/attempt/);
    expect(() => callbackToken(secret, 'wf', 'erase', 1.5)).toThrow(/attempt/);
  });
});

describe('buildCallbackUrl / checkCallbackPath', () => {
  test('round-trips ids that need encoding', () => {
    const wf = 'pipe/1 ü?#.review';
    const url = buildCallbackUrl('https://hooks.example.com/', secret, wf, 'review-b1', 3);
    expect(url.startsWith(`https://hooks.example.com/callbacks/${encodeURIComponent(wf)}/review-b1/3/`)).toBe(true);
    expect(url).toMatch(/\/[0-9a-f]{32}$/);
    const { pathname } = new URL(url);
    expect(parseCallbackPath(secret, pathname)).toEqual({ workflowId: wf, step: 'review-b1', attempt: 3 });
  });

  test('a base URL with a path prefix works, with or without the prefix on arrival', () => {
    const url = buildCallbackUrl('https://example.com/reelflow', secret, 'wf', 'erase', 1);
    const { pathname } = new URL(url);
    expect(pathname.startsWith('/reelflow/callbacks/wf/erase/1/')).toBe(true);
    expect(parseCallbackPath(secret, pathname)).toEqual({ workflowId: 'wf', step: 'erase', attempt: 1 });
    expect(parseCallbackPath(secret, pathname.replace('/reelflow', ''))).toEqual({
      workflowId: 'wf',
      step: 'erase',
      attempt: 1,
    });
  });

  test('a tampered token is rejected', () => {
    const { pathname } = new URL(buildCallbackUrl('http://h', secret, 'wf', 'generation', 1));
    const token = pathname.split('/').pop()!;
    const flipped = `${token.slice(0, -1)}${token.endsWith('0') ? '1' : '0'}`;
    const tampered = pathname.replace(token, flipped);
    expect(parseCallbackPath(secret, tampered)).toBeNull();
    expect(checkCallbackPath(secret, tampered)).toEqual({ ok: false, reason: 'bad-token' });
    expect(checkCallbackPath(secret, pathname.replace(token, token.toUpperCase()))).toEqual({
      ok: false,
      reason: 'bad-token',
    });
    expect(checkCallbackPath(secret, pathname.replace(token, token.slice(0, 31)))).toEqual({
      ok: false,
      reason: 'bad-token',
    });
    expect(checkCallbackPath('another-secret-xxxxxxxx', pathname)).toEqual({ ok: false, reason: 'bad-token' });
  });

  test('a token is valid only for its own workflow, step and attempt', () => {
    const token = callbackToken(secret, 'wf', 'review-b0', 1);
    expect(parseCallbackPath(secret, `/callbacks/wf/review-b0/1/${token}`)).not.toBeNull();
    expect(parseCallbackPath(secret, `/callbacks/wf2/review-b0/1/${token}`)).toBeNull();
    expect(parseCallbackPath(secret, `/callbacks/wf/review-b1/1/${token}`)).toBeNull();
    expect(parseCallbackPath(secret, `/callbacks/wf/review-b0/2/${token}`)).toBeNull();
  });

  test('malformed paths are told apart from bad tokens', () => {
    const token = callbackToken(secret, 'wf', 'erase', 1);
    for (const p of [
      '/',
      '/callbacks',
      `/callbacks/wf/erase/${token}`,
      `/hooks/wf/erase/1/${token}`,
      `/callbacks/wf/erase/01/${token}`,
      `/callbacks/wf/erase/1e0/${token}`,
      `/callbacks/wf/erase/-1/${token}`,
      `/callbacks//erase/1/${token}`,
      `/callbacks/%E0%A4%A/erase/1/${token}`,
      `/callbacks/wf/erase/1/${token}/extra`,
    ]) {
      expect(checkCallbackPath(secret, p)).toEqual({ ok: false, reason: 'malformed' });
    }
  });

  test('the comparison is constant-time (crypto.timingSafeEqual)', () => {
    // Behavioural proof that the check goes through timingSafeEqual: spy on it.
    const crypto = jest.requireActual<typeof import('node:crypto')>('node:crypto');
    const spy = jest.spyOn(crypto, 'timingSafeEqual');
    try {
      const { pathname } = new URL(buildCallbackUrl('http://h', secret, 'wf', 'erase', 1));
      parseCallbackPath(secret, pathname);
      parseCallbackPath(secret, pathname.replace(/[0-9a-f]{32}$/, '0'.repeat(32)));
      expect(spy).toHaveBeenCalledTimes(2);
    } finally {
      spy.mockRestore();
    }
  });
});

describe('v2 URLs bind the pipeline run', () => {
  const run1 = '0c6f5a8e-1b2c-4d3e-8f90-a1b2c3d4e5f6';
  const run2 = '9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a';

  test('a v2 URL names its run and authenticates for that run only', () => {
    const url = buildCallbackUrl('https://hooks.example.com/rf', secret, 'wf', 'erase', 1, run1);
    const { pathname } = new URL(url);
    expect(pathname.startsWith(`/rf/callbacks/wf/erase/1/${run1}/`)).toBe(true);
    expect(checkCallbackPath(secret, pathname)).toEqual({
      ok: true,
      target: { workflowId: 'wf', step: 'erase', attempt: 1, run: run1 },
    });
    // The same token under another run, or without the run (the v1 form), is refused.
    expect(checkCallbackPath(secret, pathname.replace(run1, run2))).toEqual({ ok: false, reason: 'bad-token' });
    expect(checkCallbackPath(secret, pathname.replace(`/${run1}`, ''))).toEqual({ ok: false, reason: 'bad-token' });
  });

  test('v1 URLs handed out before the change stay valid, and carry no run', () => {
    const v1 = new URL(buildCallbackUrl('http://h', secret, 'wf', 'generation', 2)).pathname;
    expect(checkCallbackPath(secret, v1)).toEqual({
      ok: true,
      target: { workflowId: 'wf', step: 'generation', attempt: 2 },
    });
    // A v1 token cannot be moved into a v2 path (its own HMAC context).
    const token = callbackToken(secret, 'wf', 'generation', 2);
    expect(checkCallbackPath(secret, `/callbacks/wf/generation/2/${run1}/${token}`)).toEqual({
      ok: false,
      reason: 'bad-token',
    });
  });

  test('tokens differ per run and from the v1 token; a run that is not a run id is refused', () => {
    const v1 = callbackToken(secret, 'wf', 'erase', 1);
    const a = callbackToken(secret, 'wf', 'erase', 1, run1);
    const b = callbackToken(secret, 'wf', 'erase', 1, run2);
    expect(new Set([v1, a, b]).size).toBe(3);
    expect(() => callbackToken(secret, 'wf', 'erase', 1, 'not-a-run')).toThrow(/run/);
    expect(checkCallbackPath(secret, `/callbacks/wf/erase/1/not-a-run/${a}`)).toEqual({
      ok: false,
      reason: 'malformed',
    });
  });

  test('a workflow id or base path spelled "callbacks" does not confuse the two forms', () => {
    for (const [base, wf] of [
      ['http://h/callbacks', 'wf'],
      ['http://h', 'callbacks'],
    ]) {
      for (const run of [undefined, run1]) {
        const { pathname } = new URL(buildCallbackUrl(base, secret, wf, 'erase', 3, run));
        expect(checkCallbackPath(secret, pathname)).toEqual({
          ok: true,
          target: { workflowId: wf, step: 'erase', attempt: 3, ...(run ? { run } : {}) },
        });
      }
    }
  });
});
