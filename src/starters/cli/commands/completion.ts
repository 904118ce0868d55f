/**
 * `reelflow completion bash|zsh`: prints the completion script of that shell, generated
 * from the synopsis (completion-script.ts); `--json` wraps it as `{ shell, script }`.
 */
import { EXIT } from '../output';
import type { CommandFn } from '../session';
import { COMMANDS } from '../spec';
import { bashCompletion, zshCompletion } from '../completion-script';

export const completion: CommandFn = (ctx) => {
  const shell = ctx.positionals[0]; // bash or zsh: spec.ts checks the choice
  const script = shell === 'zsh' ? zshCompletion(COMMANDS) : bashCompletion(COMMANDS);
  if (ctx.json) ctx.emit({ shell, script }, () => []);
  else ctx.io.stdout.write(script);
  return Promise.resolve(EXIT.ok);
};
