/**
 * Loads a pipeline definition from a JSON file (or stdin as "-") and validates it before
 * anything starts. Every failure is a DefinitionFileError whose message names the file
 * and, as the case may be, the line/column of a JSON syntax error or the field paths
 * of the definition (generation.content[1].image_url.url: ...), or its size when it is
 * too big for Temporal (payload-size.ts).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import {
  DefinitionError,
  parseDefinition,
  type DefinitionIssue,
  type PipelineDefinition,
  type PipelineDefinitionInput,
} from '../../definition/definition';
import { checkWorkflowInputBytes, measuredOnTheWire, resolveMaxPayloadBytes } from './payload-size';

export type DefinitionFileErrorKind = 'not-found' | 'unreadable' | 'json' | 'definition';

export type { DefinitionIssue } from '../../definition/definition';

export class DefinitionFileError extends Error {
  override readonly name = 'DefinitionFileError';
  readonly kind: DefinitionFileErrorKind;
  /** The path as the user gave it, or "<stdin>". */
  readonly file: string;
  readonly line?: number;
  readonly column?: number;
  /** Field-level problems (kind "definition"). */
  readonly issues: DefinitionIssue[];

  constructor(
    kind: DefinitionFileErrorKind,
    file: string,
    message: string,
    extra: { line?: number; column?: number; issues?: DefinitionIssue[]; cause?: unknown } = {},
  ) {
    super(message, extra.cause === undefined ? undefined : { cause: extra.cause });
    this.kind = kind;
    this.file = file;
    if (extra.line !== undefined) this.line = extra.line;
    if (extra.column !== undefined) this.column = extra.column;
    this.issues = extra.issues ?? [];
  }

  /** One line per problem, each naming the file (and field or line:column). */
  lines(): string[] {
    if (this.kind === 'definition' && this.issues.length > 0) {
      return this.issues.map((i) => `${this.file}: ${i.path || '(root)'}: ${i.message}`);
    }
    return [this.message];
  }
}

/**
 * A definition read, validated and measured once (loadDefinitionFile, validateDefinitionValue):
 * startPipeline and runPipeline take it as it is, without parsing or serialising it again.
 */
export class LoadedDefinition {
  constructor(
    /** Where it came from: the path as given, or "<stdin>". */
    readonly source: string,
    /** The definition as written, after a JSON round trip (what the workflow receives; it applies the defaults itself). */
    readonly input: PipelineDefinitionInput,
    /** The validated definition with defaults applied. */
    readonly definition: PipelineDefinition,
    /** Its size as the workflow's input (payload-size.ts). */
    readonly bytes: number,
  ) {}

  /**
   * Itself, when it fits this payload limit too (it may be loaded with one limit and started
   * with another); else a DefinitionFileError naming the source, the size and the limit.
   */
  within(maxPayloadBytes: number): this {
    namingSource(this.source, () => checkWorkflowInputBytes(this.bytes, maxPayloadBytes));
    return this;
  }
}

export interface ValidateOptions {
  /** Refuse a definition bigger than this as workflow input (default: $REELFLOW_MAX_PAYLOAD_BYTES, else 2 MiB). */
  maxPayloadBytes?: number;
  /** Environment to read REELFLOW_MAX_PAYLOAD_BYTES from (default: process.env). */
  env?: NodeJS.ProcessEnv;
  /**
   * options.allowPrivateHosts when the definition does not say (the demo sets it: it runs
   * against the local emulator).
   */
  allowPrivateHosts?: boolean;
}

export interface LoadOptions extends ValidateOptions {
  /** Resolve relative paths against this folder (default: process.cwd()). */
  cwd?: string;
  /** Read "-" from this stream (default: process.stdin). */
  stdin?: NodeJS.ReadableStream;
}

export const STDIN_NAME = '<stdin>';

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk));
  return Buffer.concat(chunks).toString('utf8');
}

/** Line and column (1-based) of a character offset. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, Math.max(0, Math.min(offset, text.length)));
  const lines = before.split('\n');
  return { line: lines.length, column: lines[lines.length - 1].length + 1 };
}

/**
 * JSON.parse with a message that says where: "line 3, column 5: Expected ',' or '}'
 * after property value". Works with V8 messages that carry "at position N" (Node 20)
 * and those that also add "(line L column C)" (newer Node).
 */
export function parseJsonText(text: string, file: string): unknown {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (body.trim() === '') {
    throw new DefinitionFileError('json', file, `${file}: empty file: expected a JSON object (a pipeline definition)`);
  }
  try {
    return JSON.parse(body);
  } catch (err) {
    const raw = err instanceof Error ? err.message : String(err);
    const m = /\bat position (\d+)/.exec(raw);
    const offset = m ? Number(m[1]) : /Unexpected end of JSON input/.test(raw) ? body.length : undefined;
    const reason = raw
      .replace(/\s*\(line \d+ column \d+\)/, '')
      .replace(/\s*in JSON at position \d+/, '')
      .replace(/^Unexpected end of JSON input$/, 'unexpected end of input (unclosed object, array or string?)');
    if (offset === undefined) {
      throw new DefinitionFileError('json', file, `${file}: invalid JSON: ${reason}`, { cause: err });
    }
    const { line, column } = lineColumn(body, offset);
    throw new DefinitionFileError('json', file, `${file}:${line}:${column}: invalid JSON: ${reason}`, {
      line,
      column,
      cause: err,
    });
  }
}

/** The definition with options.allowPrivateHosts defaulted (a malformed options is left for validation to name). */
function withDefaultPrivateHosts(value: object, allow: boolean | undefined): object {
  const options: unknown = (value as { options?: unknown }).options;
  if (
    allow === undefined ||
    (options !== undefined && (options === null || typeof options !== 'object' || Array.isArray(options)))
  )
    return value;
  return { ...value, options: { allowPrivateHosts: allow, ...options } };
}

/** What `check` returns; a DefinitionError it throws becomes a DefinitionFileError naming the source. */
function namingSource<T>(source: string, check: () => T): T {
  try {
    return check();
  } catch (err) {
    if (err instanceof DefinitionError) {
      throw new DefinitionFileError('definition', source, `${source}: ${err.message}`, {
        issues: err.issues,
        cause: err,
      });
    }
    throw err;
  }
}

/**
 * Validates parsed JSON, and its size as workflow input; a DefinitionError becomes a
 * DefinitionFileError naming the source.
 */
export function validateDefinitionValue(
  value: unknown,
  source = 'definition',
  opts: ValidateOptions = {},
): LoadedDefinition {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    const got = value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;
    throw new DefinitionFileError(
      'definition',
      source,
      `${source}: a pipeline definition is a JSON object, got ${got}`,
      {
        issues: [{ path: '', message: `a pipeline definition is a JSON object, got ${got}` }],
      },
    );
  }
  return namingSource(source, () => {
    const { wire, bytes } = measuredOnTheWire(
      withDefaultPrivateHosts(value, opts.allowPrivateHosts),
      resolveMaxPayloadBytes(opts.maxPayloadBytes, opts.env),
    );
    return new LoadedDefinition(source, wire, parseDefinition(wire), bytes);
  });
}

/** The text of a file ("-" = stdin); a DefinitionFileError names the file when it cannot be read. */
export async function readDefinitionText(
  file: string,
  opts: Pick<LoadOptions, 'cwd' | 'stdin'> = {},
): Promise<{ source: string; text: string }> {
  if (!file) throw new DefinitionFileError('not-found', '', 'no definition file given (a path, or - for stdin)');
  if (file === '-') return { source: STDIN_NAME, text: await readAll(opts.stdin ?? process.stdin) };
  const full = path.resolve(opts.cwd ?? process.cwd(), file);
  try {
    return { source: file, text: await readFile(full, 'utf8') };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') {
      throw new DefinitionFileError('not-found', file, `${file}: no such file (looked at ${full})`, { cause: err });
    }
    if (code === 'EISDIR') {
      throw new DefinitionFileError('unreadable', file, `${file}: is a directory, not a definition file`, {
        cause: err,
      });
    }
    throw new DefinitionFileError('unreadable', file, `${file}: cannot read: ${code ?? String(err)}`, { cause: err });
  }
}

/** Reads, parses and validates a definition file ("-" = stdin). */
export async function loadDefinitionFile(file: string, opts: LoadOptions = {}): Promise<LoadedDefinition> {
  const { source, text } = await readDefinitionText(file, opts);
  return validateDefinitionValue(parseJsonText(text, source), source, opts);
}
