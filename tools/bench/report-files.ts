/** Writes a run's report pair, <dir>/<kind>-<ISO>.json and .md; returns their paths. */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export function writeReportFiles(
  kind: string,
  startedAt: string,
  data: unknown,
  markdown: string,
  dir: string,
): { json: string; md: string } {
  mkdirSync(dir, { recursive: true });
  const stamp = startedAt.replace(/[:.]/g, '-');
  const json = path.join(dir, `${kind}-${stamp}.json`);
  const md = path.join(dir, `${kind}-${stamp}.md`);
  writeFileSync(json, `${JSON.stringify(data, null, 2)}\n`);
  writeFileSync(md, markdown);
  return { json, md };
}
