/**
 * `reelflow completion bash|zsh`: the scripts, generated from the synopsis, run in the real
 * shells. Bash: the script is sourced and `_reelflow` called as bash calls it on Tab
 * (COMP_WORDS, COMP_CWORD), COMPREPLY read back ("(files)" where it asks bash for file names,
 * `compopt -o default`, which works only under a real Tab). Zsh (installed with apt-get when
 * missing): `zsh -n`, and
 * `_reelflow` run with the completion system's functions (_describe, _arguments) replaced by
 * ones that print what they are given, so the test reads what zsh would offer.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureDebianCommand } from '../support/debian-package';
import { COMMANDS } from '../../src/starters/cli/spec';
import { LIST_STATUSES } from '../../src/starters/client/pipeline-client';
import { OVERLAP_POLICIES } from '../../src/starters/client/schedules';
import { cli } from '../support/cli';

const dir = mkdtempSync(path.join(os.tmpdir(), 'reelflow-completion-'));

async function script(shell: string): Promise<string> {
  const r = await cli(['completion', shell]);
  expect(r).toMatchObject({ code: 0, stderr: '' });
  const file = path.join(dir, `reelflow.${shell}`);
  writeFileSync(file, r.stdout);
  return file;
}

/** What bash offers for the command line `words` (the last one is the word being completed). */
function bashComplete(file: string, words: string[]): string[] {
  const r = spawnSync(
    'bash',
    [
      '--norc',
      '--noprofile',
      '-c',
      [
        'compopt() { [[ $* == "-o default" ]] && COMPREPLY+=("(files)"); }',
        'source "$1" || exit 9; shift',
        'COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _reelflow',
        'printf "%s\\n" "${COMPREPLY[@]}"',
      ].join('\n'),
      'bash',
      file,
      ...words,
    ],
    { encoding: 'utf8' },
  );
  expect(r).toMatchObject({ status: 0, stderr: '' });
  return r.stdout.split('\n').filter(Boolean);
}

describe('bash', () => {
  let file: string;
  beforeAll(async () => {
    file = await script('bash');
  });

  test.each([
    [['reelflow', 'sch'], ['schedule']],
    [['reelflow', 'schedule', 'p'], ['pause']],
    [
      ['reelflow', 'schedule', 'u'],
      ['update', 'unpause'],
    ],
    [
      ['reelflow', 'list', '--st'],
      ['--status', '--stage'],
    ],
    [
      ['reelflow', 'list', '--status', 'w'],
      ['waiting-operator', 'waiting-budget'],
    ],
    [
      ['reelflow', 'list', '--status', '=', 'w'],
      ['waiting-operator', 'waiting-budget'],
    ], // --status=w: bash splits at "="
    [['reelflow', 'run', ''], ['(files)']],
    [['reelflow', 'start', '--batch', ''], ['(files)']],
    [['reelflow', 'schedule', 'update', 'nightly', ''], ['(files)']],
    [['reelflow', 'run', '--task-queue', ''], []], // a queue name: not a file
    [['reelflow', 'list', '--query', '-'], []], // a value, not the options
    [
      ['reelflow', 'completion', ''],
      ['bash', 'zsh'],
    ],
    [['reelflow', 'help', 'wo'], ['worker']],
    [['reelflow', 'start', 'x.json', '--priority', 'i'], ['interactive']],
    [['reelflow', 'cancel', '--y'], ['--yes']],
  ])('%j → %j', (words, expected) => {
    expect(bashComplete(file, words).sort()).toEqual([...expected].sort());
  });

  test('the values of an option with choices are its choices', () => {
    expect(bashComplete(file, ['reelflow', 'list', '--status', ''])).toEqual([...LIST_STATUSES, 'canceled']);
    expect(bashComplete(file, ['reelflow', 'schedule', 'trigger', 'nightly', '--overlap', ''])).toEqual([
      ...OVERLAP_POLICIES,
    ]);
  });

  test('every command and subcommand of the synopsis, with every option of each', () => {
    const top = [...new Set(COMMANDS.map((c) => c.name.split(' ')[0]))];
    expect(bashComplete(file, ['reelflow', ''])).toEqual([...top, 'help', '--help', '--version']);
    for (const c of COMMANDS) {
      const options = Object.entries(c.options).flatMap(([n, o]) => [`--${n}`, ...(o.short ? [`-${o.short}`] : [])]);
      expect({ command: c.name, offered: bashComplete(file, ['reelflow', ...c.name.split(' '), '-']).sort() }).toEqual({
        command: c.name,
        offered: options.sort(),
      });
    }
  });
});

/** The zsh script's offer for `words`: the items given to _describe, or the specs given to _arguments. */
function zshComplete(file: string, words: string[]): string[] {
  const r = spawnSync(
    'zsh',
    [
      '-f',
      '-c',
      [
        'compdef() { :; }',
        '_describe() { print -rl -- "${(@P)4}"; }',
        '_arguments() { shift; print -rl -- "$@"; }',
        'source "$1" || exit 9; shift',
        'words=("$@"); CURRENT=$#',
        '_reelflow',
      ].join('\n'),
      'zsh',
      file,
      ...words,
    ],
    { encoding: 'utf8' },
  );
  expect(r.stderr).toBe('');
  return r.stdout.split('\n').filter(Boolean);
}

describe('zsh', () => {
  let file: string;
  beforeAll(async () => {
    ensureDebianCommand('zsh');
    file = await script('zsh');
  });

  test('the script parses (zsh -n)', () => {
    expect(spawnSync('zsh', ['-n', file], { encoding: 'utf8' })).toMatchObject({ status: 0, stderr: '' });
  });

  test('commands and subcommands with their summaries; options with their values', () => {
    expect(zshComplete(file, ['reelflow', 'sch'])).toContain(
      'schedule:schedule create|list|update|pause|unpause|trigger|delete',
    );
    expect(zshComplete(file, ['reelflow', 'schedule', 'p'])).toContain(
      'pause:pause a schedule: no run starts until it is unpaused',
    );
    const list = zshComplete(file, ['reelflow', 'list', '--st']);
    expect(list).toContainEqual(
      expect.stringMatching(
        new RegExp(`^--status=\\[one of [^\\]]*\\]:status:\\(${[...LIST_STATUSES, 'canceled'].join(' ')}\\)$`),
      ),
    );
    expect(list).toContain('--json[machine-readable output: one JSON document on stdout]');
    expect(zshComplete(file, ['reelflow', 'completion', ''])).toContain('1:shell:(bash zsh)');
    expect(zshComplete(file, ['reelflow', 'schedule', 'update', 'nightly', ''])).toEqual(
      expect.arrayContaining(['1:schedule-id: ', '2::file:_files']),
    );
  });
});

test('completion takes bash or zsh; --json wraps the script', async () => {
  const bad = await cli(['completion', 'fish', '--json']);
  expect(bad.code).toBe(2);
  expect(bad.json().error).toMatchObject({ option: '<shell>', message: '<shell>: "fish" is not one of bash, zsh' });
  const doc = (await cli(['completion', 'zsh', '--json'])).json();
  expect(doc.shell).toBe('zsh');
  expect(doc.script).toMatch(/^#compdef reelflow\n/);
});
