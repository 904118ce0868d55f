/**
 * Reading the README and docs/ the way a reader does: a section under its heading, the fenced
 * blocks in it, the `export` lines of its shell blocks; and masking what differs from run to
 * run (ids, URLs, hashes, durations), so a sample output can be compared with a real one.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

export const ROOT = path.resolve(__dirname, '../..');

export function readPage(page: string): string {
  return readFileSync(path.join(ROOT, page), 'utf8');
}

export interface Fence {
  /** The info string: `sh`, `json`, `` (none). */
  lang: string;
  /** The lines between the fences, joined, with a final newline; de-indented (blocks in a list item). */
  text: string;
  /** 1-based line of the opening fence. */
  line: number;
}

/** Every fenced block of a Markdown text, in order. */
export function fences(markdown: string): Fence[] {
  const out: Fence[] = [];
  const lines = markdown.split('\n');
  let open: { lang: string; indent: number; line: number; body: string[] } | undefined;
  lines.forEach((line, i) => {
    const m = /^(\s*)```\s*([\w-]*)\s*$/.exec(line);
    if (m && !open) open = { lang: m[2], indent: m[1].length, line: i + 1, body: [] };
    else if (m && open) {
      out.push({ lang: open.lang, text: open.body.map((l) => `${l.slice(open!.indent)}\n`).join(''), line: open.line });
      open = undefined;
    } else open?.body.push(line);
  });
  return out;
}

/** The text under a heading (any level), up to the next heading of the same or a higher level. */
export function section(markdown: string, heading: string): string {
  const lines = markdown.split('\n');
  let fenced = false;
  let level = 0;
  const body: string[] = [];
  for (const line of lines) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    const h = fenced ? null : /^(#{1,6})\s+(.*?)\s*$/.exec(line);
    if (level && h && h[1].length <= level) break;
    if (level) body.push(line);
    else if (h && h[2] === heading) level = h[1].length;
  }
  if (!level) throw new Error(`no heading "${heading}"`);
  return body.join('\n');
}

/** The names a section's shell blocks `export` (comments left out), in order of appearance. */
export function exportedNames(markdown: string): string[] {
  const names: string[] = [];
  for (const block of fences(markdown).filter((f) => f.lang === 'sh')) {
    for (const line of block.text.split('\n')) {
      if (!/^\s*export\s/.test(line)) continue;
      const code = line.replace(/\s#.*$/, '');
      for (const m of code.matchAll(/(?:^|\s)([A-Z][A-Z0-9_]*)=/g)) if (!names.includes(m[1])) names.push(m[1]);
    }
  }
  return names;
}

/**
 * What varies between two runs of the same pipeline, replaced by a placeholder: the random
 * part of workflow ids, vendor ids, local host:port, signed-URL query values, sha256 prefixes,
 * durations, timestamps, the archive root (the folder above the pipeline's), and how many
 * polls a stage took (the vendor call counts).
 */
const MASKS: [RegExp, string][] = [
  [/\b(reelflow-[a-z0-9-]*?-)[a-z0-9]{8}\b/g, '$1<rand>'],
  [/\b(asset|group|cgt|erase|review)-[0-9a-f]{16,}\b/g, '$1-<id>'],
  [/\bhttps?:\/\/(127\.0\.0\.1|localhost):\d+/g, 'http://<local>'],
  [/\bexpires=\d+/g, 'expires=<n>'],
  [/\bsignature=[0-9a-f]+/g, 'signature=<hex>'],
  [/\bsha256 [0-9a-f]{16}…/g, 'sha256 <hash>…'],
  [/\(\d+(\.\d+)? (s|min)\)/g, '(<duration>)'],
  [/\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z\b/g, '<time>'],
  [/(^|\s)\/\S*?\/(?=reelflow-[a-z0-9-]*<rand>\/)/gm, '$1<archive>/'],
];

export function mask(text: string): string {
  let out = MASKS.reduce((t, [re, by]) => t.replace(re, by), text);
  out = out.replace(
    /^( *vendor calls: )(.*)$/gm,
    (_, head: string, calls: string) => `${head}${calls.replace(/(\w+\.\w+) \d+/g, '$1 <n>')}`,
  );
  return out;
}
