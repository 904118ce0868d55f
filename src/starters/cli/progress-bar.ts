/**
 * A one-line progress bar for a terminal (`start --batch`, `wait --batch`): redrawn in
 * place with a carriage return, so it belongs on stderr, and only on a TTY.
 */
import type { OutputStream } from '../client/progress';

/** "[#########-----------] 9/20" (width cells of bar). */
export function renderBar(done: number, total: number, width = 20): string {
  const filled = total > 0 ? Math.min(width, Math.round((done / total) * width)) : 0;
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${done}/${total}`;
}

export class ProgressBar {
  private drawn = false;
  constructor(
    private readonly out: OutputStream,
    private readonly label: string,
  ) {}

  /** A bar only where one can be redrawn: a TTY. */
  static on(out: OutputStream, label: string): ProgressBar | undefined {
    return out.isTTY ? new ProgressBar(out, label) : undefined;
  }

  update(done: number, total: number, note = ''): void {
    this.out.write(`\r\x1b[2K${this.label} ${renderBar(done, total)}${note ? `  ${note}` : ''}`);
    this.drawn = true;
  }

  /** Leaves the last state on screen and ends its line. */
  finish(): void {
    if (this.drawn) this.out.write('\n');
    this.drawn = false;
  }
}
