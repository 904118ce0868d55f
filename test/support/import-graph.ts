/**
 * The source tree as tests read it: its .ts files, and the modules a file loads, followed
 * transitively through relative imports (static imports and re-exports, type-only ones
 * included: a conservative reading; side-effect imports, dynamic import() and require()).
 * Packages are reported as `pkg:<name>`.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** Every .ts file under `root/dir`, as a path relative to `root`. */
export function tsFiles(root: string, dir: string): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = path.join(dir, e.name);
    if (e.isDirectory()) return tsFiles(root, rel);
    return e.name.endsWith('.ts') ? [rel] : [];
  });
}

const SPECIFIERS = [
  /^\s*(?:import|export)[^'";]*?from\s+'([^']+)'/gm,
  /^\s*import\s+'([^']+)'/gm,
  /\b(?:import|require)\(\s*'([^']+)'\s*\)/g,
];

export function importsOf(file: string): string[] {
  const src = readFileSync(file, 'utf8');
  return SPECIFIERS.flatMap((re) => [...src.matchAll(re)].map((m) => m[1]));
}

/** The .ts file a relative specifier names (a file or a folder's index). */
export function resolveTs(from: string, spec: string): string {
  const base = path.resolve(path.dirname(from), spec);
  return existsSync(`${base}.ts`) ? `${base}.ts` : path.join(base, 'index.ts');
}

/** Every file (absolute path) and package (`pkg:name`) `file` reaches, itself included. */
export function reachableFrom(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  for (const spec of importsOf(file)) {
    if (spec.startsWith('.')) reachableFrom(resolveTs(file, spec), seen);
    else seen.add(`pkg:${spec}`);
  }
  return seen;
}
