/**
 * Headless Chromium driven over the DevTools protocol, for the Web UI screenshots
 * (web-ui-screenshots.ts). Dev-only: the browser is Debian's `chromium` package, spoken to
 * with undici's WebSocket (already a dependency), so no browser-automation package is needed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { WebSocket } from 'undici';

export const DEFAULT_CHROMIUM = '/usr/bin/chromium';

/** The browser binary: $CHROMIUM, else /usr/bin/chromium; a clear error when it is missing. */
export function findChromium(env: NodeJS.ProcessEnv = process.env): string {
  const bin = env.CHROMIUM?.trim() || DEFAULT_CHROMIUM;
  if (!existsSync(bin)) {
    throw new Error(`${bin} not found: install it with \`apt-get install chromium\` (or set CHROMIUM=<path>)`);
  }
  return bin;
}

/**
 * Flags for a closed network: without the background-networking ones Chromium's own
 * connections (updates, sync, field trials) are refused and slow everything down.
 */
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--hide-scrollbars',
  '--remote-debugging-address=127.0.0.1',
  '--remote-debugging-port=0',
];

export interface Page {
  /** Opens the URL at this viewport size and waits until `ready` (a JS expression) is true. */
  open(url: string, ready: string, size: { width: number; height: number }): Promise<void>;
  /** Evaluates a JS expression in the page and returns its (JSON) value. */
  evaluate<T>(expression: string): Promise<T>;
  /** Waits until the JS expression is true (polling), or throws naming it. */
  waitFor(expression: string, timeoutMs?: number): Promise<void>;
  /** A PNG of the viewport. */
  screenshot(): Promise<Buffer>;
}

export interface Browser {
  page: Page;
  close(): Promise<void>;
}

async function devToolsPort(dir: string, child: ChildProcess, timeoutMs = 30_000): Promise<number> {
  const file = path.join(dir, 'DevToolsActivePort');
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`chromium exited early (code ${child.exitCode})`);
    if (existsSync(file)) {
      const port = Number(readFileSync(file, 'utf8').split('\n')[0]);
      if (port > 0) return port;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`chromium did not open its DevTools port within ${timeoutMs} ms`);
}

/** One DevTools session over a page's WebSocket: numbered requests, matched replies. */
class Session {
  private next = 1;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();

  private constructor(private readonly ws: WebSocket) {
    ws.addEventListener('message', (ev) => {
      const msg = JSON.parse(String(ev.data)) as { id?: number; result?: unknown; error?: { message: string } };
      const waiter = msg.id === undefined ? undefined : this.pending.get(msg.id);
      if (!waiter) return;
      this.pending.delete(msg.id!);
      if (msg.error) waiter.reject(new Error(`DevTools: ${msg.error.message}`));
      else waiter.resolve(msg.result);
    });
    ws.addEventListener('close', () => {
      for (const w of this.pending.values()) w.reject(new Error('DevTools connection closed'));
      this.pending.clear();
    });
  }

  static open(url: string): Promise<Session> {
    const ws = new WebSocket(url);
    return new Promise((resolve, reject) => {
      ws.addEventListener('open', () => resolve(new Session(ws)), { once: true });
      ws.addEventListener('error', () => reject(new Error(`cannot connect to ${url}`)), { once: true });
    });
  }

  send<T>(method: string, params: Record<string, unknown> = {}): Promise<T> {
    const id = this.next++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.ws.send(JSON.stringify({ id, method, params }));
    });
  }

  close(): void {
    this.ws.close();
  }
}

function pageOf(session: Session): Page {
  const evaluate = async <T>(expression: string): Promise<T> => {
    const res = await session.send<{ result: { value?: T }; exceptionDetails?: { text: string } }>('Runtime.evaluate', {
      expression,
      returnByValue: true,
      awaitPromise: true,
    });
    if (res.exceptionDetails) throw new Error(`in the page: ${res.exceptionDetails.text} (${expression})`);
    return res.result.value as T;
  };
  const waitFor = async (expression: string, timeoutMs = 30_000): Promise<void> => {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (await evaluate<boolean>(`Boolean(${expression})`).catch(() => false)) return;
      await new Promise((r) => setTimeout(r, 250));
    }
    throw new Error(`the page never showed what was awaited within ${timeoutMs} ms: ${expression}`);
  };
  return {
    evaluate,
    waitFor,
    open: async (url, ready, size) => {
      await session.send('Emulation.setDeviceMetricsOverride', { ...size, deviceScaleFactor: 1, mobile: false });
      // Through about:blank, so `ready` is never read from the previous page.
      await session.send('Page.navigate', { url: 'about:blank' });
      await waitFor(`location.href === 'about:blank'`);
      await session.send('Page.navigate', { url });
      await waitFor(`location.href !== 'about:blank' && (${ready})`);
    },
    screenshot: async () => {
      const { data } = await session.send<{ data: string }>('Page.captureScreenshot', { format: 'png' });
      return Buffer.from(data, 'base64');
    },
  };
}

/** Starts headless Chromium with an empty profile and opens one page. */
export async function launchChromium(bin = findChromium()): Promise<Browser> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'reelflow-chromium-'));
  const child = spawn(bin, [...FLAGS, `--user-data-dir=${dir}`, 'about:blank'], { stdio: 'ignore' });
  // Retries: Chromium's helper processes may still write to the profile for a moment after it exits.
  // A profile left behind in the temp folder is not worth failing the run the screenshots already made.
  const cleanup = () => {
    try {
      rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
    } catch (err) {
      process.stderr.write(`chromium: could not remove ${dir}: ${(err as Error).message}\n`);
    }
  };
  try {
    const port = await devToolsPort(dir, child);
    const targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as {
      type: string;
      webSocketDebuggerUrl: string;
    }[];
    const target = targets.find((t) => t.type === 'page');
    if (!target) throw new Error('chromium opened no page');
    const session = await Session.open(target.webSocketDebuggerUrl);
    await session.send('Page.enable');
    return {
      page: pageOf(session),
      close: async () => {
        session.close();
        if (child.exitCode === null && child.signalCode === null) {
          const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
          child.kill('SIGTERM');
          await exited;
        }
        cleanup();
      },
    };
  } catch (e) {
    child.kill('SIGKILL');
    cleanup();
    throw e;
  }
}
