/**
 * Summaries of V8 CPU profiles (node --cpu-prof): self time by package and by function,
 * so the report can say where a process spent its CPU. Pure apart from reading files.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
export interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileSummary {
  file: string;
  totalMs: number;
  /** Self time by where the code lives: a package, node internals, V8 states, reelflow itself. */
  byPackage: { name: string; ms: number; share: number }[];
  /** The functions with the most self time. */
  topFunctions: { name: string; where: string; ms: number; share: number }[];
}

/** Where a frame's code lives: "@temporalio/worker", "zod", "node:internal", "(garbage collector)", "reelflow", … */
export function packageOf(url: string, functionName: string): string {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  if (url.includes('workflow-bundle')) return 'workflow bundle (sandboxed workflow code)';
  const at = url.lastIndexOf('node_modules/');
  if (at >= 0) return /^((?:@[^/]+\/)?[^/]+)/.exec(url.slice(at + 'node_modules/'.length))?.[1] ?? 'node_modules';
  if (url.startsWith('node:')) return 'node:internal';
  return 'reelflow';
}

export function summarizeProfile(profile: CpuProfile, file: string, top = 12): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000));
  let totalMs = 0;
  const packages = new Map<string, number>();
  const functions = new Map<string, { name: string; where: string; ms: number }>();
  for (const [id, ms] of self) {
    const node = byId.get(id);
    if (!node) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === '(idle)') continue;
    totalMs += ms;
    const pkg = packageOf(url, functionName);
    packages.set(pkg, (packages.get(pkg) ?? 0) + ms);
    const where = url
      ? `${url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*?\/(dist|src)\//, '$1/')}:${lineNumber + 1}`
      : '';
    const key = `${functionName}@${where}`;
    const f = functions.get(key) ?? { name: functionName || '(anonymous)', where, ms: 0 };
    f.ms += ms;
    functions.set(key, f);
  }
  const share = (ms: number) => (totalMs > 0 ? ms / totalMs : 0);
  return {
    file,
    totalMs,
    byPackage: [...packages].map(([name, ms]) => ({ name, ms, share: share(ms) })).sort((a, b) => b.ms - a.ms),
    topFunctions: [...functions.values()]
      .sort((a, b) => b.ms - a.ms)
      .slice(0, top)
      .map((f) => ({ ...f, share: share(f.ms) })),
  };
}

/** Every *.cpuprofile under `dir` (one per thread of each profiled process), summarized. */
export function summarizeProfiles(dir: string): ProfileSummary[] {
  let files: string[];
  try {
    files = readdirSync(dir, { recursive: true })
      .map(String)
      .filter((f) => f.endsWith('.cpuprofile'));
  } catch {
    return [];
  }
  return files
    .sort()
    .map((f) => summarizeProfile(JSON.parse(readFileSync(path.join(dir, f), 'utf8')) as CpuProfile, f));
}
