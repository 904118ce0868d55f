/**
 * `reelflow completion bash|zsh`: the shell completion scripts, generated from the
 * synopsis (spec.ts COMMANDS) so they cannot drift from it: commands, subcommands, every
 * option, the values of options that have choices (`list --status`), file names where a
 * file is expected. Static: no process runs on each Tab (docs/cli.md, "Shell completion").
 */
import type { CommandSpec, OptionSpec } from './spec';

/** The groups (`schedule`, `assets`, …) and their subcommands, in the synopsis' order. */
function groupsOf(commands: readonly CommandSpec[]): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const c of commands) {
    const [group, sub] = c.name.split(' ');
    if (sub !== undefined) groups.set(group, [...(groups.get(group) ?? []), sub]);
  }
  return groups;
}

function topWords(commands: readonly CommandSpec[]): string[] {
  return [...new Set(commands.map((c) => c.name.split(' ')[0]))];
}

/** Option words of a command: `--name` and its short form. */
function optionWords(c: CommandSpec): string[] {
  return Object.entries(c.options).flatMap(([name, o]) => [`--${name}`, ...(o.short ? [`-${o.short}`] : [])]);
}

const takesFile = (placeholder: string) => /file/.test(placeholder);

/** What completes an option's value: its choices, file names, or nothing to offer. */
type ValueKind = { choices: readonly string[] } | 'file' | 'other';

function valueKind(o: OptionSpec): ValueKind {
  if (o.choices) return { choices: o.choices };
  return takesFile(o.value ?? '') ? 'file' : 'other';
}

const bashQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** The `case "$cmd $opt"` arms of the options whose value can be completed: choices, or file names. */
function bashValueArms(commands: readonly CommandSpec[]): string[] {
  const arms = new Map<string, string[]>();
  for (const c of commands) {
    for (const [name, o] of Object.entries(c.options)) {
      const kind = valueKind(o);
      if (o.type !== 'string' || kind === 'other') continue;
      const action =
        kind === 'file'
          ? 'compopt -o default; return ;;'
          : `COMPREPLY=($(compgen -W ${bashQuote(kind.choices.join(' '))} -- "$cur")); return ;;`;
      arms.set(action, [...(arms.get(action) ?? []), bashQuote(`${c.name} --${name}`)]);
    }
  }
  return [...arms].map(([action, patterns]) => `    ${patterns.join('|')}) ${action}`);
}

/** Per command: its option words, and (space-delimited) the options that take a value. */
function bashCommandArm(c: CommandSpec): string {
  const values = Object.entries(c.options)
    .filter(([, o]) => o.type === 'string')
    .map(([name]) => `--${name}`);
  return `    ${bashQuote(c.name)}) words=${bashQuote(optionWords(c).join(' '))}; values=${bashQuote(` ${values.join(' ')} `)} ;;`;
}

/** The arms completing a command's arguments: its argument choices, or file names where it takes a file. */
function bashArgumentArms(commands: readonly CommandSpec[]): string[] {
  return commands.flatMap((c) => {
    if (c.argChoices) {
      return [`    ${bashQuote(c.name)}) COMPREPLY=($(compgen -W ${bashQuote(c.argChoices.join(' '))} -- "$cur")) ;;`];
    }
    return takesFile(c.positionals.names) ? [`    ${bashQuote(c.name)}) compopt -o default ;;`] : [];
  });
}

/** The bash script: `_reelflow` reads COMP_WORDS / COMP_CWORD and sets COMPREPLY. */
export function bashCompletion(commands: readonly CommandSpec[]): string {
  const groups = groupsOf(commands);
  const top = [...topWords(commands), 'help', '--help', '--version'];
  const lines = [
    '# bash completion for reelflow, generated from its synopsis by `reelflow completion bash`.',
    '# Load it from ~/.bashrc: source <(reelflow completion bash)',
    '_reelflow() {',
    '  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} cmd=${COMP_WORDS[1]} opt words values',
    '  COMPREPLY=()',
    '  if ((COMP_CWORD == 1)); then',
    `    COMPREPLY=($(compgen -W ${bashQuote(top.join(' '))} -- "$cur"))`,
    '    return',
    '  fi',
    '  case $cmd in',
    `    ${[...groups.keys()].join('|')})`,
    '      if ((COMP_CWORD == 2)); then',
    '        case $cmd in',
    ...[...groups].map(
      ([g, subs]) => `          ${g}) COMPREPLY=($(compgen -W ${bashQuote(subs.join(' '))} -- "$cur")) ;;`,
    ),
    '        esac',
    '        return',
    '      fi',
    '      cmd="$cmd ${COMP_WORDS[2]}" ;;',
    `    help) ((COMP_CWORD == 2)) && COMPREPLY=($(compgen -W ${bashQuote(topWords(commands).join(' '))} -- "$cur")); return ;;`,
    '  esac',
    '  # --opt=value: bash splits the word at "=" (COMP_WORDBREAKS).',
    '  opt=$prev',
    '  if [[ $cur == = ]]; then cur=""; elif [[ $prev == = ]]; then opt=${COMP_WORDS[COMP_CWORD-2]}; fi',
    '  case $cmd in',
    ...commands.map(bashCommandArm),
    '    *) return ;;',
    '  esac',
    '  case "$cmd $opt" in',
    ...bashValueArms(commands),
    '  esac',
    '  # The value of an option with nothing to offer (an id, a number, a query).',
    '  [[ $opt == --* && $values == *" $opt "* ]] && return',
    '  if [[ $cur == -* ]]; then',
    '    COMPREPLY=($(compgen -W "$words" -- "$cur"))',
    '    return',
    '  fi',
    '  case $cmd in',
    ...bashArgumentArms(commands),
    '  esac',
    '}',
    'complete -F _reelflow reelflow',
  ];
  return `${lines.join('\n')}\n`;
}

/** Text in a zsh single-quoted word; `[`/`]` escaped for an _arguments description. */
const zshQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
const zshHelp = (s: string) => s.replace(/\\/g, '\\\\').replace(/([[\]])/g, '\\$1');

function zshValue(o: OptionSpec): string {
  const kind = valueKind(o);
  const label = (o.value ?? 'value').replace(/[<>:]/g, '');
  if (kind === 'file') return `:${label}:_files`;
  return kind === 'other' ? `:${label}: ` : `:${label}:(${kind.choices.join(' ')})`;
}

/** The _arguments specs of one command: each option, then its arguments. */
function zshArguments(c: CommandSpec): string[] {
  const options = Object.entries(c.options).flatMap(([name, o]) => {
    const value = o.type === 'string' ? zshValue(o) : '';
    const repeat = o.multiple ? '*' : '';
    const eq = o.type === 'string' ? '=' : '';
    return [`--${name}`, ...(o.short ? [`-${o.short}`] : [])].map((w) =>
      zshQuote(`${repeat}${w}${w.startsWith('--') ? eq : ''}[${zshHelp(o.help)}]${value}`),
    );
  });
  const names = c.positionals.names.split(' ').filter(Boolean);
  const args = names.map((n, i) => {
    const label = n.replace(/[[\]<>…:]/g, '');
    const action = c.argChoices ? `(${c.argChoices.join(' ')})` : takesFile(n) ? '_files' : ' ';
    if (n.endsWith('…')) return zshQuote(`*:${label}:${action}`);
    return zshQuote(`${i + 1}:${n.startsWith('[') ? ':' : ''}${label}:${action}`);
  });
  return [...options, ...args];
}

const describeItem = (name: string, text: string) => zshQuote(`${name}:${text}`);

/** The zsh script: works from $fpath (autoloaded as _reelflow) and when sourced after compinit. */
export function zshCompletion(commands: readonly CommandSpec[]): string {
  const groups = groupsOf(commands);
  const summary = (name: string) =>
    groups.has(name) ? `${name} ${groups.get(name)!.join('|')}` : commands.find((c) => c.name === name)!.summary;
  const lines = [
    '#compdef reelflow',
    '# zsh completion for reelflow, generated from its synopsis by `reelflow completion zsh`.',
    '# Load it from ~/.zshrc after compinit: source <(reelflow completion zsh)',
    '_reelflow() {',
    '  local cmd=${words[2]}',
    '  local -a items',
    '  if (( CURRENT == 2 )); then',
    `    items=(${topWords(commands)
      .map((w) => describeItem(w, summary(w)))
      .join(' ')})`,
    "    _describe -t commands 'reelflow command' items",
    '    return',
    '  fi',
    '  case $cmd in',
    ...[...groups].flatMap(([g, subs]) => [
      `    ${g})`,
      '      if (( CURRENT == 3 )); then',
      `        items=(${subs.map((s) => describeItem(s, commands.find((c) => c.name === `${g} ${s}`)!.summary)).join(' ')})`,
      `        _describe -t commands 'reelflow ${g} subcommand' items`,
      '        return',
      '      fi',
      '      cmd="$cmd ${words[3]}"; shift words; (( CURRENT-- )) ;;',
    ]),
    '  esac',
    '  shift words; (( CURRENT-- ))',
    '  case $cmd in',
    ...commands.map((c) => `    ${zshQuote(c.name)}) _arguments -s ${zshArguments(c).join(' ')} ;;`),
    '  esac',
    '}',
    'if [[ ${funcstack[1]} == _reelflow ]]; then _reelflow "$@"; else compdef _reelflow reelflow; fi',
  ];
  return `${lines.join('\n')}\n`;
}
