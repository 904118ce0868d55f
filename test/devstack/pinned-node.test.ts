/**
 * The Node reelflow runs on (docs/testing.md, "Which Node"): the worker and the CLI warn on a
 * Node past its end of life, and scripts/run.mjs runs the demo, the tests and the bench on the
 * pinned Node that .ci/run uses, whatever Node started it (REELFLOW_SYSTEM_NODE=1 keeps that one).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { realpathSync } from 'node:fs';
import path from 'node:path';
import { nodeSupportWarning } from '../../src/config/node-support';

const root = path.join(__dirname, '..', '..');

test('Node 20 and older are warned about, naming the supported lines; 22 and 24 are not', () => {
  expect(nodeSupportWarning('20.20.2')).toBe(
    'Node.js 20.20.2 is past its end of life and unsupported: run reelflow on Node.js 22 or 24 (the image ships 24)',
  );
  expect(nodeSupportWarning('18.0.0')).toMatch(/^Node\.js 18\.0\.0 is past its end of life/);
  expect(nodeSupportWarning('22.12.0')).toBeUndefined();
  expect(nodeSupportWarning('24.21.0')).toBeUndefined();
  expect(nodeSupportWarning('26.0.0')).toBeUndefined();
});

const pinnedBin = () =>
  execFileSync(process.execPath, [path.join(root, 'scripts', 'ensure-node.mjs')])
    .toString()
    .trim();

/** A Node on this machine that is not the pinned one (CI's image has its own Node 20 besides the pinned 24). */
function otherNode(pinned: string): string | undefined {
  const found = spawnSync('which', ['-a', 'node'], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean);
  return [...found, process.execPath].find((n) => realpathSync(n) !== realpathSync(path.join(pinned, 'node')));
}

test('run.mjs runs the demo on the pinned Node, unless REELFLOW_SYSTEM_NODE=1', () => {
  const pinned = pinnedBin();
  const other = otherNode(pinned);
  // Every machine reelflow is tested on has one (the image's own Node); say so if this one has not.
  if (!other) throw new Error(`no Node besides the pinned ${pinned} on PATH: this test needs one`);
  const demoHelp = (env: NodeJS.ProcessEnv) =>
    spawnSync(other, [path.join(root, 'scripts', 'run.mjs'), 'demo', '--help'], {
      cwd: root,
      env: { ...process.env, ...env },
      encoding: 'utf8',
    });
  const moved = demoHelp({});
  expect(moved.status).toBe(0);
  expect(moved.stderr).toContain(`reelflow: demo runs on the pinned Node ${pinned}`);
  expect(moved.stdout + moved.stderr).toContain('usage: npm run demo');
  const kept = demoHelp({ REELFLOW_SYSTEM_NODE: '1' });
  expect(kept.status).toBe(0);
  expect(kept.stderr).not.toContain('runs on the pinned Node');
});
