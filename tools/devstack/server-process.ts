/**
 * What the dev server and the real server on PostgreSQL share as child processes:
 * wait until the frontend answers, and stop gracefully (SIGINT, then SIGKILL).
 */
import type { ChildProcess } from 'node:child_process';
import { Connection } from '@temporalio/client';
import { connectTemporal } from '../../src/config/temporal-connection';

/** Resolves with a connection once the frontend answers; the caller closes it. */
export async function waitUntilServing(
  what: string,
  address: string,
  child: ChildProcess,
  timeoutMs: number,
): Promise<Connection> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${what} exited early (code ${child.exitCode})`);
    try {
      const connection = await connectTemporal({ address, connectTimeout: 2_000 });
      await connection.workflowService.getSystemInfo({});
      return connection;
    } catch (err) {
      lastError = err;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  throw new Error(`${what} did not answer on ${address} within ${timeoutMs} ms: ${String(lastError)}`);
}

/** SIGINT, then SIGKILL if it has not exited within `graceMs`. No-op when it is gone. */
export async function stopChild(child: ChildProcess | undefined, graceMs = 15_000): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGINT');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}
