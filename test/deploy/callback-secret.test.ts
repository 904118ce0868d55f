/**
 * deploy/docker/with-generated-secret.sh, the worker's and the emulator's entrypoint in
 * docker-compose.yml: without REELFLOW_CALLBACK_SECRET (EMULATOR_CONTROL_TOKEN) it makes a
 * random secret once and keeps it (so callback URLs signed before a restart still verify),
 * readable by its owner only, never printed.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const SCRIPT = path.resolve(__dirname, '../../deploy/docker/with-generated-secret.sh');
// The wrapped command prints the secret it was given (only to this test).
const SHOW = 'process.stdout.write(process.env.REELFLOW_CALLBACK_SECRET ?? "")';

function runWrapped(
  env: Record<string, string>,
  variable = 'REELFLOW_CALLBACK_SECRET',
  show = SHOW,
): { stdout: string; stderr: string; status: number | null } {
  const res = spawnSync('sh', [SCRIPT, variable, process.execPath, '-e', show], {
    env: { PATH: process.env.PATH, ...env },
    encoding: 'utf8',
  });
  return { stdout: res.stdout, stderr: res.stderr, status: res.status };
}

test('makes a secret once, keeps it for the next start, owner-only, and never prints it', () => {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'reelflow-secret-')), 'callback-secret');
  const first = runWrapped({ REELFLOW_CALLBACK_SECRET_FILE: file });
  expect(first.status).toBe(0);
  expect(first.stdout).toMatch(/^[0-9a-f]{64}$/);
  expect(readFileSync(file, 'utf8')).toBe(first.stdout);
  expect(statSync(file).mode & 0o077).toBe(0);
  expect(first.stderr).not.toContain(first.stdout);

  const second = runWrapped({ REELFLOW_CALLBACK_SECRET_FILE: file, REELFLOW_CALLBACK_SECRET: '' });
  expect(second.stdout).toBe(first.stdout);
  expect(second.stderr).toBe('');
});

test('a secret from the environment wins and nothing is written', () => {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'reelflow-secret-')), 'callback-secret');
  const res = runWrapped({ REELFLOW_CALLBACK_SECRET_FILE: file, REELFLOW_CALLBACK_SECRET: 'given-secret-0123456789' });
  expect(res.stdout).toBe('given-secret-0123456789');
  expect(() => statSync(file)).toThrow();
});

test('fails, without running the command, when the secret cannot be kept', () => {
  const res = runWrapped({ REELFLOW_CALLBACK_SECRET_FILE: '/nonexistent-dir/callback-secret' });
  expect(res.status).not.toBe(0);
  expect(res.stdout).toBe('');
});

test("the emulator's control token: generated the same way when EMULATOR_CONTROL_TOKEN is empty", () => {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'reelflow-secret-')), 'emulator-control-token');
  const show = 'process.stdout.write(process.env.EMULATOR_CONTROL_TOKEN ?? "")';
  const res = runWrapped(
    { EMULATOR_CONTROL_TOKEN: '', EMULATOR_CONTROL_TOKEN_FILE: file },
    'EMULATOR_CONTROL_TOKEN',
    show,
  );
  expect(res.status).toBe(0);
  expect(res.stdout).toMatch(/^[0-9a-f]{64}$/);
  expect(readFileSync(file, 'utf8')).toBe(res.stdout);
  expect(res.stderr).toContain('generated EMULATOR_CONTROL_TOKEN');
  expect(res.stderr).not.toContain(res.stdout);
});

test('refuses a bad variable name, or no place to keep the secret, without running the command', () => {
  expect(runWrapped({}, 'lower; rm -rf /').status).toBe(2);
  const res = runWrapped({}, 'EMULATOR_CONTROL_TOKEN');
  expect(res.status).toBe(2);
  expect(res.stderr).toContain('EMULATOR_CONTROL_TOKEN_FILE');
  expect(res.stdout).toBe('');
});
