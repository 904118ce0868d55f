/**
 * A command the tests need from a Debian package (docker-compose, zsh), installed with
 * apt-get when missing (CI runs as root; elsewhere sudo -n). Without apt the test fails
 * and says so: never a silent skip.
 */
import { execFileSync, spawnSync } from 'node:child_process';

const LOCK = '/tmp/reelflow-apt.lock';
const has = (cmd: string) => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;

export function ensureDebianCommand(command: string, pkg: string = command): void {
  if (has(command)) return;
  const root = process.getuid?.() === 0;
  if (!has('apt-get') || (!root && !has('sudo'))) {
    throw new Error(
      `the tests need \`${command}\` (Debian package ${pkg}) and cannot install it: no apt-get (or no root)`,
    );
  }
  // Jest runs test files in parallel: a lock, so only one of them runs apt-get (two collide on dpkg's lock).
  const apt = (args: string[]) => {
    const cmd = ['flock', LOCK, ...(root ? ['apt-get'] : ['sudo', '-n', 'apt-get']), ...args];
    execFileSync(cmd[0], cmd.slice(1), {
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  };
  process.stderr.write(`tests: installing ${pkg} with apt-get (once)…\n`);
  apt(['update', '-qq']);
  if (has(command)) return;
  // Recommends would pull more (for docker-compose, a whole Docker engine); the tests need none.
  apt(['install', '-y', '-qq', '--no-install-recommends', pkg]);
  if (!has(command)) throw new Error(`apt-get installed ${pkg} but \`${command}\` is not on PATH`);
}
