/**
 * The codec server's Host allow-list (DNS rebinding) and its Content-Type rule (no
 * preflight-free "simple" cross-origin request), over real HTTP; no Temporal needed.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { Readable } from 'node:stream';
import { defaultPayloadConverter } from '@temporalio/common';
import { codecFromEnv, type EncryptionCodec } from '../../src/codec';
import { startCodecServer, type CodecServer } from '../../src/codec/server';
import { hostAllowList } from '../../src/codec/host-allow-list';
import { runCli } from '../../src/starters/cli/main';
import { ROOT } from '../support/cli';

const codec = codecFromEnv({ REELFLOW_CODEC_KEYS: `kid1:${randomBytes(32).toString('base64')}` }) as EncryptionCodec;
const UI = 'http://localhost:8233';

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** http.request, not fetch: fetch will not let a test set the Host header. */
function request(port: number, method: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path: '/decode', headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function encryptedBody(): Promise<string> {
  const [enc] = await codec.encode([defaultPayloadConverter.toPayload({ prompt: 'dawn' })]);
  const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64');
  return JSON.stringify({
    payloads: [
      {
        metadata: Object.fromEntries(Object.entries(enc.metadata ?? {}).map(([k, v]) => [k, b64(v)])),
        data: b64(enc.data!),
      },
    ],
  });
}

describe('bound to loopback, no token', () => {
  let server: CodecServer;
  let body: string;
  beforeAll(async () => {
    server = await startCodecServer({ host: '127.0.0.1', port: 0, codec, origins: [UI] });
    body = await encryptedBody();
  });
  afterAll(() => server.close());
  const json = { 'content-type': 'application/json' };

  test('a rebinding page (its own name as Host) is refused with 403 and a clear body; loopback names answer', async () => {
    const evil = await request(server.port, 'POST', { ...json, host: `rebind.attacker.example:${server.port}` }, body);
    expect(evil.status).toBe(403);
    expect((JSON.parse(evil.body) as { error: string }).error).toContain(
      `Host header "rebind.attacker.example:${server.port}" is not one this codec server`,
    );
    expect(evil.body).not.toContain('dawn');
    for (const host of [`127.0.0.1:${server.port}`, `localhost:${server.port}`, `LOCALHOST:${server.port}`]) {
      const ok = await request(server.port, 'POST', { ...json, host }, body);
      expect({ host, status: ok.status }).toEqual({ host, status: 200 });
      expect(
        Buffer.from((JSON.parse(ok.body) as { payloads: { data: string }[] }).payloads[0].data, 'base64').toString(),
      ).toContain('dawn');
    }
    // Another port on loopback is another server.
    expect((await request(server.port, 'POST', { ...json, host: '127.0.0.1:1' }, body)).status).toBe(403);
  });

  test('POST without Content-Type: application/json is 415; the Web UI preflight still works', async () => {
    const host = `127.0.0.1:${server.port}`;
    for (const ct of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      const r = await request(server.port, 'POST', { host, 'content-type': ct, origin: 'http://evil.example' }, body);
      expect({ ct, status: r.status }).toEqual({ ct, status: 415 });
      expect(r.body).toContain('Content-Type must be application/json');
    }
    expect((await request(server.port, 'POST', { host }, body)).status).toBe(415);
    const charset = await request(
      server.port,
      'POST',
      { host, 'content-type': 'application/json; charset=utf-8' },
      body,
    );
    expect(charset.status).toBe(200);
    const preflight = await request(server.port, 'OPTIONS', {
      host: `localhost:${server.port}`,
      origin: UI,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type, x-namespace',
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe(UI);
    expect(preflight.headers['access-control-allow-headers']).toContain('content-type');
  });
});

describe('bound to every interface', () => {
  test('refuses to start without a list of host names', async () => {
    await expect(
      startCodecServer({ host: '0.0.0.0', port: 0, codec, origins: [], token: 'x'.repeat(16) }),
    ).rejects.toThrow(/allowedHosts is required when the codec server binds every interface \(0\.0\.0\.0\)/);
  });

  test('answers the listed names only', async () => {
    const server = await startCodecServer({
      host: '0.0.0.0',
      port: 0,
      codec,
      origins: [],
      allowedHosts: ['codec.internal.example'],
    });
    try {
      const body = await encryptedBody();
      const json = { 'content-type': 'application/json' };
      const listed = await request(
        server.port,
        'POST',
        { ...json, host: `codec.internal.example:${server.port}` },
        body,
      );
      expect(listed.status).toBe(200);
      // The URL it prints (127.0.0.1) answers too.
      expect(server.url).toBe(`http://127.0.0.1:${server.port}`);
      expect((await request(server.port, 'POST', { ...json, host: `127.0.0.1:${server.port}` }, body)).status).toBe(
        200,
      );
      const other = await request(server.port, 'POST', { ...json, host: `evil.example:${server.port}` }, body);
      expect(other.status).toBe(403);
      expect(other.body).toContain(`codec.internal.example:${server.port}`);
    } finally {
      await server.close();
    }
  });

  test('the CLI refuses --host 0.0.0.0 without --allowed-host, naming the option and the variable', async () => {
    let stderr = '';
    const code = await runCli(['codec-server', '--host', '0.0.0.0', '--port', '0'], {
      stdout: { write: () => true },
      stderr: { write: (s: string) => (stderr += s) },
      stdin: Readable.from([]),
      env: {
        REELFLOW_CODEC_KEYS: `kid1:${randomBytes(32).toString('base64')}`,
        REELFLOW_CODEC_SERVER_TOKEN: 'a'.repeat(20),
      },
      cwd: ROOT,
    });
    expect(code).not.toBe(0);
    expect(stderr).toContain('--allowed-host (or REELFLOW_CODEC_SERVER_HOSTS) is required with --host 0.0.0.0');
  });
});

test('allowed hosts: a name with a port is a name, a bare IPv6 address is bracketed', () => {
  const allowed = hostAllowList('0.0.0.0', 8888, ['codec-server:8888', 'ui.internal', '::1']);
  expect([...allowed]).toEqual(
    expect.arrayContaining(['codec-server:8888', 'ui.internal:8888', '[::1]:8888', '127.0.0.1:8888']),
  );
  expect(() => hostAllowList('0.0.0.0', 8888, ['http://x/'])).toThrow(/allowedHosts: "http:\/\/x\/"/);
});
