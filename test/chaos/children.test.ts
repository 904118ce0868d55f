/**
 * The chaos run's process keeper: waiting for a child's "ready" line must not stop its
 * output from being read. (It once did: readline.close() paused the pipe, the callback
 * receiver's log stopped at 64 KB, and a longer run would have blocked the receiver on
 * a full pipe.) Also: every child is killed at the end.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Children } from '../../tools/bench/chaos-children';

test('output after the ready line keeps flowing to the log, well past a pipe buffer; killAll ends every child', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'reelflow-children-'));
  const script = path.join(dir, 'child.js');
  // READY, then 4,000 lines of 100 bytes (400 KB, several pipe buffers), then DONE; then wait.
  writeFileSync(
    script,
    `console.log('READY');
     for (let i = 0; i < 4000; i++) console.log(String(i).padStart(99, '.'));
     console.log('DONE');
     setInterval(() => undefined, 1000);`,
  );
  const children = new Children(dir);
  try {
    const child = children.node('child', script, [], { PATH: process.env.PATH });
    await children.waitForLine(child, /^READY$/, 10_000, 'child');
    await children.waitForLine(child, /^DONE$/, 10_000, 'child');
    const exited = new Promise((r) => child.once('exit', (_code, signal) => r(signal)));
    children.killAll();
    expect(await exited).toBe('SIGKILL');
    await new Promise((r) => setTimeout(r, 300)); // the log file is ended after exit
    const lines = readFileSync(path.join(dir, 'child.log'), 'utf8').trim().split('\n');
    expect(lines).toHaveLength(4002);
    expect(lines.at(-1)).toBe('DONE');
  } finally {
    children.dispose();
  }
});

test('a child that exits before it is ready is reported, with its exit code', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'reelflow-children-'));
  const script = path.join(dir, 'fail.js');
  writeFileSync(script, `console.error('no config'); process.exit(4);`);
  const children = new Children(dir);
  try {
    const child = children.node('fail', script, [], { PATH: process.env.PATH });
    await expect(children.waitForLine(child, /^READY$/, 10_000, 'fail')).rejects.toThrow(
      'fail exited (code 4) before it was ready',
    );
  } finally {
    children.dispose();
  }
});
