/**
 * zod issues in words a user can act on. zod's own messages ("Invalid input", "Too small:
 * expected string to have >=1 characters", "Unrecognized key") say neither what was
 * expected nor what was found; these say both, and each issue names its field.
 */
import type { z } from 'zod';
import { didYouMean } from './suggest';

export interface DefinitionIssue {
  /** Field path as users write it: generation.content[1].image_url.url ('' = the whole definition). */
  path: string;
  message: string;
}

const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_]{0,59}$/;

/** A key as it may be printed: odd ones quoted (escapes control characters) and cut short. */
function keyText(key: string): string {
  return JSON.stringify(key.length > 40 ? `${key.slice(0, 40)}…` : key);
}

/** Formats a zod path the way users write it: generation.content[1].image_url.url */
export function formatPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((acc, key) => {
    if (typeof key === 'number') return `${acc}[${key}]`;
    const k = String(key);
    if (!PLAIN_KEY.test(k)) return `${acc}[${keyText(k)}]`;
    return acc ? `${acc}.${k}` : k;
  }, '');
}

const TYPE_WORDS: Readonly<Record<string, string>> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'true or false',
  object: 'an object',
  array: 'an array',
};

/** A string short and plain enough to echo ("Photo", "retry"): never a URL, token or key. */
const ECHOABLE = /^[A-Za-z0-9 _.:-]{0,12}$/;

/** What was found, short and safe to print (messages reach logs and the workflow history). */
export function shown(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return ECHOABLE.test(value) ? JSON.stringify(value) : 'a string';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

const count = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

function sizeMessage(
  iss: { origin: string; inclusive?: boolean },
  bound: number | bigint,
  dir: 'least' | 'most',
): string {
  const n = Number(bound);
  if (iss.origin === 'string')
    return dir === 'least' && n === 1 ? 'must not be empty' : `must be at ${dir} ${count(n, 'character')}`;
  if (iss.origin === 'array')
    return dir === 'least' && n === 1 ? 'must list at least one item' : `must list at ${dir} ${count(n, 'item')}`;
  if (iss.inclusive === false) return `must be ${dir === 'least' ? 'greater' : 'less'} than ${n}`;
  return `must be at ${dir} ${n}`;
}

/** The zod error map of definitions (schema-level messages still win). */
export const definitionErrorMap: z.core.$ZodErrorMap = (iss) => {
  switch (iss.code) {
    case 'invalid_type': {
      const want = TYPE_WORDS[iss.expected] ?? iss.expected;
      return iss.input === undefined ? `is required (${want})` : `must be ${want}, got ${shown(iss.input)}`;
    }
    case 'too_small':
      return sizeMessage(iss, iss.minimum, 'least');
    case 'too_big':
      return sizeMessage(iss, iss.maximum, 'most');
    case 'invalid_value': {
      const want = iss.values.map((v) => JSON.stringify(v)).join(', ');
      return `must be ${iss.values.length === 1 ? want : `one of ${want}`}, got ${shown(iss.input)}`;
    }
    case 'invalid_format':
      return iss.format === 'regex' ? 'has the wrong format' : `must be a valid ${iss.format}`;
    case 'not_multiple_of':
      return `must be a multiple of ${String(iss.divisor)}`;
    case 'invalid_union':
      return 'matches none of the allowed forms';
    default:
      return undefined;
  }
};

/** Hints for fields people write by habit but the definition leaves to reelflow. */
const UNKNOWN_FIELD_HINTS: Readonly<Record<string, string>> = {
  'generation.callback_url': 'is set by reelflow itself: use options.callbacks',
};

/**
 * One issue per field, in zod's order: an unknown key is named itself (not its parent), and
 * a field with several problems keeps the first (fix it, and the next one shows). An unknown
 * key gets the CLI's "did you mean" among `knownKeys(parent path)` (`optoins` → `options`).
 */
export function definitionIssues(
  error: z.ZodError,
  knownKeys: (path: readonly PropertyKey[]) => readonly string[] = () => [],
): DefinitionIssue[] {
  const out: DefinitionIssue[] = [];
  const seen = new Set<string>();
  const add = (path: string, message: string) => {
    if (seen.has(path)) return;
    seen.add(path);
    out.push({ path, message });
  };
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        const path = formatPath([...issue.path, key]);
        add(path, UNKNOWN_FIELD_HINTS[path] ?? `is not a known field${didYouMean(key, knownKeys(issue.path))}`);
      }
    } else {
      add(formatPath(issue.path), issue.message);
    }
  }
  return out;
}
