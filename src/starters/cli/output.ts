/**
 * What every CLI command gets: its parsed arguments, the process streams (injectable,
 * so tests run the CLI in-process), and the two output modes: human lines, or exactly
 * one JSON document on stdout with --json.
 */
import type { OutputStream } from '../client/progress';

export interface CliIo {
  stdout: OutputStream;
  stderr: OutputStream;
  stdin?: NodeJS.ReadableStream;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Aborted on Ctrl-C: `run` and `status --follow` stop following (the pipeline keeps running). */
  signal?: AbortSignal;
}

export const EXIT = {
  ok: 0,
  failed: 1,
  usage: 2,
  cancelled: 3,
  interrupted: 130,
} as const;

export type Values = Record<string, string | boolean | string[] | undefined>;

export class CommandContext {
  constructor(
    readonly name: string,
    readonly positionals: string[],
    readonly values: Values,
    readonly io: CliIo,
  ) {}

  get json(): boolean {
    return this.values.json === true;
  }

  str(name: string): string | undefined {
    const v = this.values[name];
    return typeof v === 'string' ? v : undefined;
  }

  list(name: string): string[] | undefined {
    const v = this.values[name];
    return Array.isArray(v) ? v : typeof v === 'string' ? [v] : undefined;
  }

  bool(name: string): boolean {
    return this.values[name] === true;
  }

  int(name: string): number | undefined {
    const v = this.str(name);
    return v === undefined ? undefined : Number(v);
  }

  /** The command's output: `doc` as JSON with --json, else the human lines. */
  emit(doc: unknown, human: () => string[]): void {
    if (this.json) this.io.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
    else for (const line of human()) this.io.stdout.write(`${line}\n`);
  }

  /** A remark for people (stderr), never part of the JSON document. */
  info(line: string): void {
    if (!this.json) this.io.stderr.write(`${line}\n`);
  }
}

/** A plain text table: header row, columns padded to the widest cell. */
export function table(header: string[], rows: (string | number | undefined)[][]): string[] {
  const cells = [header, ...rows.map((r) => r.map((c) => (c === undefined || c === '' ? '-' : String(c))))];
  const widths = header.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  return cells.map((r) =>
    r
      .map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i])))
      .join('  ')
      .replace(/\s+$/, ''),
  );
}

/** "Key: value" lines for one object, nested objects as JSON. */
export function keyValues(obj: Record<string, unknown>): string[] {
  const keys = Object.keys(obj);
  const width = Math.max(0, ...keys.map((k) => k.length));
  return keys
    .filter((k) => obj[k] !== undefined)
    .map((k) => {
      const v = obj[k];
      return `${`${k}:`.padEnd(width + 1)} ${typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v)}`;
    });
}
