/**
 * Contract-test harness: one emulator per test file (port 0) and clients for its two
 * users, a bad key, and a bad token. Default credentials are the emulator's own
 * (test/support/emulator.ts).
 */
import { Agent } from 'undici';
import { startEmulator, type EmulatorOptions, type RunningEmulator } from '../../src/emulator';
import { createVendorClient, type VendorClient, type VendorClientOptions } from '../../src/vendor-api/client';
import { VendorError } from '../../src/vendor-api/errors';
import { httpRequest } from '../../src/vendor-api/http';
import { API_KEY, REAL_CLOCK_TIMINGS, USER_1, USER_2 } from '../support/emulator';
import { startServer, type LocalServer } from '../support/http-server';

export interface Harness {
  emu: RunningEmulator;
  /** API key + user 1. */
  client: VendorClient;
  /** API key + user 2. */
  user2: VendorClient;
  make(over?: Partial<VendorClientOptions>): VendorClient;
}

/**
 * Registers beforeAll/afterAll/beforeEach(reset) and returns a live handle. `clientOpts`
 * apply to every client made (e.g. the emulator's pathWord).
 */
export function useEmulator(opts: EmulatorOptions = {}, clientOpts: Partial<VendorClientOptions> = {}): Harness {
  const made: VendorClient[] = [];
  const h = {} as Harness;
  beforeAll(async () => {
    h.emu = await startEmulator({ port: 0, profile: REAL_CLOCK_TIMINGS, ...opts });
    h.make = (over = {}) => {
      const c = createVendorClient({
        baseUrl: h.emu.url,
        identityUrl: h.emu.url,
        apiKey: API_KEY,
        accessToken: USER_1,
        timeouts: { connectMs: 2_000, headersMs: 5_000, bodyMs: 5_000 },
        ...clientOpts,
        ...over,
      });
      made.push(c);
      return c;
    };
    h.client = h.make();
    h.user2 = h.make({ accessToken: USER_2 });
  });
  beforeEach(() => h.emu.reset());
  afterAll(async () => {
    await Promise.all(made.map((c) => c.close()));
    await h.emu?.close();
  });
  return h;
}

/** A local callback receiver (answers 200) for the test file, emptied before each test. */
export function useCallbackReceiver(): Pick<LocalServer, 'url' | 'requests'> {
  let server: LocalServer | undefined;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server?.close());
  beforeEach(() => {
    if (server) server.requests.length = 0;
  });
  return {
    get url() {
      return server!.url;
    },
    get requests() {
      return server!.requests;
    },
  };
}

/** The rejection of `p`, which must be a VendorError. */
export async function failure(p: Promise<unknown>): Promise<VendorError> {
  try {
    await p;
  } catch (err) {
    if (!(err instanceof VendorError)) throw err;
    return err;
  }
  throw new Error('expected the call to fail');
}

/** A public-looking media URL (the emulator refuses loopback/private hosts). */
export const media = (name: string): string => `https://cdn.example.com/media/${name}`;

/**
 * One request through the client's HTTP layer with hand-made headers and body: for
 * vendor-side rules the typed client refuses to send (so both sides are shown to agree).
 */
export async function rawCall(
  h: Harness,
  call: {
    endpoint: string;
    method: 'GET' | 'POST';
    path: string;
    headers?: Record<string, string>;
    body?: unknown;
    knownFields?: string[];
  },
): Promise<unknown> {
  const dispatcher = new Agent();
  try {
    const res = await httpRequest({ ...call, url: `${h.emu.url}${call.path}`, idempotent: false, dispatcher });
    return res.json;
  } finally {
    await dispatcher.close();
  }
}
