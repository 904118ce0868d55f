/**
 * docs/cli.md against the CLI's own table (src/starters/cli/spec.ts COMMANDS): the synopsis
 * (the page's first code block) lists every command and no other, and every `reelflow …`
 * the page writes as code (code spans, code blocks) names a command that exists, with options
 * that command takes. Prose without backticks is not read.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { COMMANDS, findCommand } from '../../src/starters/cli/spec';

const ROOT = path.resolve(__dirname, '../..');
const PAGE = readFileSync(path.join(ROOT, 'docs/cli.md'), 'utf8');
const GROUPS = new Set(COMMANDS.filter((c) => c.name.includes(' ')).map((c) => c.name.split(' ')[0]));

interface Mention {
  /** The commands it names: `schedule pause|unpause` names two. */
  commands: string[];
  /** The `--options` written after it, up to where the command ends (a comment, a pipe, a description). */
  options: string[];
  text: string;
}

/** `reelflow <command> [<subcommand>|<sub>…] …` in `text`; a bare group (`reelflow schedule`) names none. */
function mentions(text: string): Mention[] {
  const found: Mention[] = [];
  for (const m of text.matchAll(/\breelflow ([a-z][a-z-]*)(?: ([a-z][a-z|-]*))?(.*)$/gm)) {
    const [, first, second, rest] = m;
    const grouped = GROUPS.has(first);
    const commands = grouped
      ? (second ?? '')
          .split('|')
          .filter(Boolean)
          .map((s) => `${first} ${s}`)
      : [first];
    const tail = `${!grouped && second !== undefined ? ` ${second}` : ''}${rest}`;
    // Where the command ends: two spaces (a synopsis description), a comment, a pipe, the span's end.
    const extent = tail.split(/ {2,}|#|`|\|(?! --)|;|&&|\$\(/)[0];
    found.push({ commands, options: [...extent.matchAll(/(?<![\w-])--[a-z][a-z-]*/g)].map((o) => o[0]), text: m[0] });
  }
  return found;
}

/** The page's code: each line of its code blocks, and each code span of its prose. */
function codeOf(markdown: string): string[] {
  const code: string[] = [];
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    else if (fenced) code.push(line);
    else code.push(...[...line.matchAll(/`([^`]+)`/g)].map((m) => m[1]));
  }
  return code;
}

const synopsis = /```\n([\s\S]*?)```/.exec(PAGE)![1];

test('the synopsis lists every command of the CLI, and only those', () => {
  const listed = new Set(mentions(synopsis).flatMap((m) => m.commands));
  expect([...listed].sort()).toEqual(COMMANDS.map((c) => c.name).sort());
});

test('every reelflow command the page writes exists, with options it takes', () => {
  const problems: string[] = [];
  const all = codeOf(PAGE).flatMap(mentions);
  for (const { commands, options, text } of all) {
    for (const name of commands) {
      const command = findCommand(name);
      if (!command) problems.push(`${text}: no command "${name}"`);
      for (const o of options) {
        if (command && !(o.slice(2) in command.options)) problems.push(`${text}: "${name}" takes no ${o}`);
      }
    }
  }
  expect(problems).toEqual([]);
  expect(all.length).toBeGreaterThan(40);
});

test('the reader catches a command or an option that does not exist', () => {
  expect(mentions('reelflow schedule pause|resume <id>')[0].commands).toEqual(['schedule pause', 'schedule resume']);
  expect(mentions('reelflow list --status failed --since 1h  # the failed ones')[0].options).toEqual([
    '--status',
    '--since',
  ]);
  expect(mentions('reelflow resolve <id> --task-id <id> | --resubmit | --abandon')[0].options).toEqual([
    '--task-id',
    '--resubmit',
    '--abandon',
  ]);
  expect(mentions('reelflow list | head --lines 3')[0].options).toEqual([]);
  expect(findCommand('schedule resume')).toBeUndefined();
});
