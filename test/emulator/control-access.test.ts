/**
 * The /__emulator/ control API can reset the emulator, inject faults and read every
 * request: it answers loopback callers of a loopback-bound emulator, or callers with the
 * configured token. Binding elsewhere without a token disables it.
 */
import type { RunningEmulator } from '../../src/emulator';
import { checkControlAccess, checkControlToken, isLoopbackAddress } from '../../src/emulator/control-access';
import type { EmuRequest } from '../../src/emulator/http';
import { api, prompt, start } from './helpers';

const TOKEN = 'ctl-token-0123456789abcdef';
/** A peer address for the pure checks only (RFC 5737 documentation range; nothing connects to it). */
const REMOTE = '192.0.2.1';

function request(path: string, authorization?: string, method = 'GET'): EmuRequest {
  return {
    method,
    path,
    query: new URLSearchParams(),
    headers: authorization ? { authorization } : {},
    body: Buffer.alloc(0),
  };
}

describe('checkControlAccess', () => {
  it('binding beyond loopback without a token disables the control API, saying how to enable it', () => {
    for (const host of ['0.0.0.0', '::', 'emulator.example.com']) {
      const refused = checkControlAccess({ host }, request('/__emulator/state'), '127.0.0.1');
      expect(refused?.status).toBe(403);
      expect((refused?.body as { message: string }).message).toMatch(/not loopback.*EMULATOR_CONTROL_TOKEN/);
    }
  });

  it('a loopback bind answers loopback callers only', () => {
    expect(checkControlAccess({ host: '127.0.0.1' }, request('/__emulator/state'), '127.0.0.1')).toBeUndefined();
    expect(
      checkControlAccess({ host: 'localhost' }, request('/__emulator/reset', undefined, 'POST'), '::1'),
    ).toBeUndefined();
    expect(checkControlAccess({ host: '127.0.0.1' }, request('/__emulator/state'), REMOTE)?.status).toBe(403);
  });

  it('a configured token is required on every bind, compared exactly', () => {
    for (const host of ['127.0.0.1', '0.0.0.0']) {
      const access = { host, token: TOKEN };
      expect(checkControlAccess(access, request('/__emulator/state'), '127.0.0.1')?.status).toBe(401);
      expect(checkControlAccess(access, request('/__emulator/state', `Bearer ${TOKEN}x`), '127.0.0.1')?.status).toBe(
        401,
      );
      expect(checkControlAccess(access, request('/__emulator/state', `Bearer ${TOKEN}`), '127.0.0.1')).toBeUndefined();
      expect(checkControlAccess(access, request('/__emulator/state', `bearer ${TOKEN}`), REMOTE)).toBeUndefined();
    }
  });

  it('health stays open', () => {
    expect(checkControlAccess({ host: '0.0.0.0' }, request('/__emulator/health'), REMOTE)).toBeUndefined();
  });

  it('knows loopback addresses', () => {
    for (const a of ['127.0.0.1', '127.9.8.7', '::1', '[::1]', '::ffff:127.0.0.1', 'localhost'])
      expect(isLoopbackAddress(a)).toBe(true);
    for (const a of ['0.0.0.0', '::', '128.0.0.1', '1270.0.0.1', undefined]) expect(isLoopbackAddress(a)).toBe(false);
  });

  it('refuses a short or spaced token, naming the variable and not the value', () => {
    for (const bad of ['short', 'has a space in it 0123']) {
      expect(() => checkControlToken(bad)).toThrow(/EMULATOR_CONTROL_TOKEN/);
      expect(() => checkControlToken(bad)).not.toThrow(bad);
    }
  });
});

describe('over HTTP, with a token', () => {
  let emu: RunningEmulator;
  beforeAll(async () => {
    emu = await start({ controlToken: TOKEN });
  });
  afterAll(() => emu.close());

  const control = (path: string, init: RequestInit = {}) => fetch(`${emu.url}/__emulator/${path}`, init);
  const auth = { authorization: `Bearer ${TOKEN}` };

  it('refuses state, requests, faults, clock and reset without it; answers with it', async () => {
    await api(emu).createGeneration(prompt('x'));
    for (const [path, method] of [
      ['state', 'GET'],
      ['requests', 'GET'],
      ['faults', 'POST'],
      ['clock', 'POST'],
      ['reset', 'POST'],
    ]) {
      const res = await control(path, { method, body: method === 'POST' ? '{}' : undefined });
      expect(res.status).toBe(401);
      expect(await res.text()).not.toContain(TOKEN);
    }
    expect(emu.inspect().generationTasks).toHaveLength(1); // the refused reset did nothing
    const state = await control('state', { headers: auth });
    expect(state.status).toBe(200);
    expect(await state.text()).not.toContain(TOKEN);
    expect((await control('reset', { method: 'POST', headers: auth })).status).toBe(200);
    expect(emu.inspect().generationTasks).toHaveLength(0);
    expect((await control('health')).status).toBe(200);
  });

  it('leaves the vendor endpoints alone', async () => {
    expect((await api(emu).createGeneration(prompt('x'))).status).toBe(200);
  });
});
