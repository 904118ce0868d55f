/**
 * The workflow bundle, prebuilt: webpack-bundling the workflows takes seconds of CPU on
 * every worker start, so the worker loads dist/workflow-bundle.js when it is present
 * and fresh, and (re)builds it when it is missing or stale.
 *
 * Freshness is a fingerprint written next to the bundle (workflow-bundle.js.json): the
 * workflows path, the SDK version, and the path, size and mtime of every source file
 * under the folder that holds the workflows folder (src/ or dist/src/), since workflows
 * import definition/ and vendor-api/ modules too. Any change there rebuilds: conservative,
 * never stale.
 *
 * A bundle with a failure converter (the codec's, src/codec/failure-converter.ts) is another
 * bundle, beside the default one: dist/workflow-bundle.<converter file name>.js. Workers
 * with the codec load it; the default bundle stays as it was for workers without.
 *
 *   node dist/src/workers/build-bundle.js      builds it (see build-bundle.ts)
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import { version as workflowSdkVersion } from '@temporalio/workflow/package.json';

export interface BundlePaths {
  /** The workflows module (file or folder with index). Default: src/workflows. */
  workflowsPath?: string;
  /** Default: <package>/dist/workflow-bundle.js. */
  outFile?: string;
  /** Folder whose files decide freshness. Default: the parent of the workflows folder. */
  sourceRoot?: string;
  /** A failure converter module to bundle in (DataConverter.failureConverterPath). Default: none. */
  failureConverterPath?: string;
}

type ResolvedPaths = Required<Omit<BundlePaths, 'failureConverterPath'>> & { failureConverterPath?: string };

export interface BundleBuildOptions extends BundlePaths {
  log?: (line: string) => void;
}

interface Manifest {
  workflowsPath: string;
  failureConverterPath?: string;
  fingerprint: string;
  builtAt: string;
}

function packageRoot(): string {
  let dir = __dirname;
  for (;;) {
    if (existsSync(path.join(dir, 'package.json')) && existsSync(path.join(dir, 'node_modules'))) return dir;
    const up = path.dirname(dir);
    if (up === dir) return process.cwd();
    dir = up;
  }
}

/**
 * The workflows entry, resolved only when called: src/workflows/index.ts under ts
 * tooling, dist/src/workflows/index.js when compiled.
 */
export function defaultWorkflowsPath(): string {
  return require.resolve('../workflows');
}

/** dist/workflow-bundle.js, or with a failure converter dist/workflow-bundle.<its file name>.js. */
export function defaultBundlePath(failureConverterPath?: string): string {
  const variant = failureConverterPath ? `.${path.parse(failureConverterPath).name}` : '';
  return path.join(packageRoot(), 'dist', `workflow-bundle${variant}.js`);
}

function resolvePaths(p: BundlePaths): ResolvedPaths {
  const workflowsPath = path.resolve(p.workflowsPath ?? defaultWorkflowsPath());
  const workflowsDir = statSync(workflowsPath).isDirectory() ? workflowsPath : path.dirname(workflowsPath);
  const failureConverterPath = p.failureConverterPath ? path.resolve(p.failureConverterPath) : undefined;
  return {
    workflowsPath,
    outFile: path.resolve(p.outFile ?? defaultBundlePath(failureConverterPath)),
    sourceRoot: path.resolve(p.sourceRoot ?? path.dirname(workflowsDir)),
    ...(failureConverterPath ? { failureConverterPath } : {}),
  };
}

const SOURCE_FILE = /\.(ts|js|mjs|cjs|json)$/;

function sourceFingerprint({ workflowsPath, sourceRoot, failureConverterPath }: ResolvedPaths): string {
  const lines: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile() && SOURCE_FILE.test(entry.name) && !entry.name.endsWith('.d.ts')) {
        const st = statSync(full);
        lines.push(`${path.relative(sourceRoot, full)}\t${st.size}\t${st.mtimeMs}`);
      }
    }
  };
  walk(sourceRoot);
  lines.sort();
  return createHash('sha256')
    .update(`${workflowsPath}\n${failureConverterPath ?? ''}\n${workflowSdkVersion}\n${lines.join('\n')}`)
    .digest('hex');
}

function readManifest(outFile: string): Manifest | undefined {
  try {
    return JSON.parse(readFileSync(`${outFile}.json`, 'utf8')) as Manifest;
  } catch {
    return undefined;
  }
}

/** True when the bundle exists and was built from the current sources. */
export function isBundleFresh(paths: BundlePaths = {}): boolean {
  const p = resolvePaths(paths);
  if (!existsSync(p.outFile)) return false;
  const m = readManifest(p.outFile);
  return !!m && m.workflowsPath === p.workflowsPath && m.fingerprint === sourceFingerprint(p);
}

/** Bundles the workflows and writes the bundle (atomically) and its fingerprint. */
export async function buildWorkflowBundle(opts: BundleBuildOptions = {}): Promise<{ codePath: string; bytes: number }> {
  const p = resolvePaths(opts);
  const fingerprint = sourceFingerprint(p);
  const converter = p.failureConverterPath ? { failureConverterPath: p.failureConverterPath } : {};
  opts.log?.(
    `bundling workflows from ${p.workflowsPath}${p.failureConverterPath ? ` with ${p.failureConverterPath}` : ''}`,
  );
  // The bundler's progress report is long; only its warnings and errors are worth a line.
  const log = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const logger = new DefaultLogger('WARN', ({ level, message }) => log(`workflow bundler ${level}: ${message}`));
  const { code } = await bundleWorkflowCode({ workflowsPath: p.workflowsPath, logger, ...converter });
  await mkdir(path.dirname(p.outFile), { recursive: true });
  const tmp = `${p.outFile}.${process.pid}.tmp`;
  await writeFile(tmp, code);
  await rename(tmp, p.outFile);
  const manifest: Manifest = {
    workflowsPath: p.workflowsPath,
    ...converter,
    fingerprint,
    builtAt: new Date().toISOString(),
  };
  await writeFile(`${tmp}.json`, `${JSON.stringify(manifest, null, 2)}\n`);
  await rename(`${tmp}.json`, `${p.outFile}.json`);
  const bytes = Buffer.byteLength(code);
  opts.log?.(`workflow bundle written: ${p.outFile} (${(bytes / 1024).toFixed(0)} KiB)`);
  return { codePath: p.outFile, bytes };
}

/** The prebuilt bundle, (re)built first when missing or stale. */
export async function ensureWorkflowBundle(
  opts: BundleBuildOptions = {},
): Promise<{ codePath: string; built: boolean }> {
  const p = resolvePaths(opts);
  if (isBundleFresh(p)) return { codePath: p.outFile, built: false };
  opts.log?.(existsSync(p.outFile) ? 'workflow bundle is stale: rebuilding' : 'no prebuilt workflow bundle: building');
  const { codePath } = await buildWorkflowBundle({ ...p, ...(opts.log ? { log: opts.log } : {}) });
  return { codePath, built: true };
}
