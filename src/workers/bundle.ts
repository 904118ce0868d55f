/**
 * The workflow bundle, prebuilt: webpack-bundling the workflows takes seconds of CPU on
 * every worker start, so the worker loads dist/workflow-bundle.js when it is present
 * and fresh, and (re)builds it when it is missing or stale.
 *
 * Freshness is a fingerprint written next to the bundle (workflow-bundle.js.json): the
 * workflows path, the SDK version, the variant, and the path and content hash of every
 * source file under the folder that holds the workflows folder (src/ or dist/), since
 * workflows import definition/ and vendor-api/ modules too. Any change there rebuilds:
 * conservative, never stale. Paths are relative to that folder and contents are hashed
 * (not mtimes), so the bundle the package ships stays fresh where it is installed.
 *
 * Variants: a worker loads the bundle that matches its settings, one file each, beside the
 * plain one, which stays exactly as it was for workers with neither:
 * - tracing on (OTEL_EXPORTER_OTLP_ENDPOINT): the OpenTelemetry workflow interceptors are
 *   bundled in, dist/workflow-bundle-tracing.js. They add no commands.
 * - a failure converter (the codec's, src/codec/failure-converter.ts) bundled in:
 *   dist/workflow-bundle.<converter file name>.js. It converts failures, never commands.
 *   With a payload converter too (the codec's, src/codec/payload-converter.ts, which only
 *   marks values its strict mode tagged): dist/workflow-bundle.<failure>.<payload>.js.
 * - both: dist/workflow-bundle-tracing.<converter file names>.js.
 * So histories replay on every variant (replay test).
 *
 * Every variant preloads the workflow modules (the SDK's `preloadModules`): each worker
 * evaluates them once, and its cached workflows share them, frozen, instead of each workflow
 * evaluating its own copy (docs/architecture.md, "Where the time goes").
 *
 *   node dist/workers/build-bundle.js      builds them (see build-bundle.ts; `npm pack` ships the plain one)
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, type Dirent } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import { version as workflowSdkVersion } from '@temporalio/workflow/package.json';

/** Which bundle: the settings that change what goes into it. */
export interface BundleVariant {
  /** With the OpenTelemetry workflow interceptors. */
  tracing?: boolean;
  /** A failure converter module to bundle in (DataConverter.failureConverterPath). */
  failureConverterPath?: string;
  /** A payload converter module to bundle in (DataConverter.payloadConverterPath). */
  payloadConverterPath?: string;
}

export interface BundlePaths extends BundleVariant {
  /** The workflows module (file or folder with index). Default: src/workflows. */
  workflowsPath?: string;
  /** Default: <package>/dist/ plus the variant's name (defaultBundlePath). */
  outFile?: string;
  /** Folder whose files decide freshness. Default: the parent of the workflows folder. */
  sourceRoot?: string;
}

/** The OpenTelemetry workflow interceptors module (enters the tracing bundles only). */
export const TRACING_INTERCEPTORS_MODULE = '@temporalio/interceptors-opentelemetry/lib/workflow-interceptors';

type Converters = 'failureConverterPath' | 'payloadConverterPath';
type ResolvedPaths = Required<Omit<BundlePaths, Converters>> & Pick<BundlePaths, Converters>;

export interface BundleBuildOptions extends BundlePaths {
  log?: (line: string) => void;
}

interface Manifest extends BundleVariant {
  workflowsPath: string;
  fingerprint: string;
  builtAt: string;
}

/** The reelflow package's folder: the repository, or node_modules/reelflow where it is installed. */
function packageRoot(): string {
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    if (isReelflowPackage(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) return process.cwd();
  }
}

function isReelflowPackage(file: string): boolean {
  try {
    return (JSON.parse(readFileSync(file, 'utf8')) as { name?: string }).name === 'reelflow';
  } catch {
    return false;
  }
}

/**
 * The workflows entry, resolved only when called: src/workflows/index.ts under ts
 * tooling, dist/workflows/index.js when compiled.
 */
export function defaultWorkflowsPath(): string {
  return require.resolve('../workflows');
}

/** dist/workflow-bundle[-tracing][.<failure converter's file name>][.<payload converter's>].js */
export function defaultBundlePath({ tracing, failureConverterPath, payloadConverterPath }: BundleVariant = {}): string {
  const converter = [failureConverterPath, payloadConverterPath]
    .map((p) => (p ? `.${path.parse(p).name}` : ''))
    .join('');
  return path.join(packageRoot(), 'dist', `workflow-bundle${tracing ? '-tracing' : ''}${converter}.js`);
}

function resolvePaths(p: BundlePaths): ResolvedPaths {
  const workflowsPath = path.resolve(p.workflowsPath ?? defaultWorkflowsPath());
  const workflowsDir = statSync(workflowsPath).isDirectory() ? workflowsPath : path.dirname(workflowsPath);
  const variant = { tracing: p.tracing === true, ...resolvedConverters(p) };
  return {
    workflowsPath,
    outFile: path.resolve(p.outFile ?? defaultBundlePath(variant)),
    sourceRoot: path.resolve(p.sourceRoot ?? path.dirname(workflowsDir)),
    ...variant,
  };
}

function resolvedConverters(p: BundleVariant): Pick<BundleVariant, Converters> {
  const { failureConverterPath: f, payloadConverterPath: c } = p;
  return {
    ...(f ? { failureConverterPath: path.resolve(f) } : {}),
    ...(c ? { payloadConverterPath: path.resolve(c) } : {}),
  };
}

function interceptorModules(p: ResolvedPaths): string[] {
  return p.tracing ? [require.resolve(TRACING_INTERCEPTORS_MODULE)] : [];
}

const SOURCE_FILE = /\.(ts|js|mjs|cjs|json)$/;
/** The bundles themselves sit in dist/, which is the source folder of the compiled layout. */
const BUNDLE_FILE = /^workflow-bundle/;

function sourceFingerprint(p: ResolvedPaths): string {
  const { workflowsPath, sourceRoot, failureConverterPath, payloadConverterPath } = p;
  const lines: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (isSourceFile(entry)) {
        const hash = createHash('sha256').update(readFileSync(full)).digest('hex');
        lines.push(`${path.relative(sourceRoot, full)}\t${hash}`);
      }
    }
  };
  walk(sourceRoot);
  lines.sort();
  const fromRoot = (file: string | undefined) => (file ? path.relative(sourceRoot, file) : '');
  return createHash('sha256')
    .update(
      [
        fromRoot(workflowsPath),
        workflowSdkVersion,
        p.tracing ? TRACING_INTERCEPTORS_MODULE : '',
        fromRoot(failureConverterPath),
        // Only when set: bundles of the other variants keep their fingerprints.
        ...(payloadConverterPath ? [`payload:${fromRoot(payloadConverterPath)}`] : []),
        ...lines,
      ].join('\n'),
    )
    .digest('hex');
}

function isSourceFile(entry: Dirent): boolean {
  const { name } = entry;
  return entry.isFile() && SOURCE_FILE.test(name) && !name.endsWith('.d.ts') && !BUNDLE_FILE.test(name);
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
  return !!m && m.fingerprint === sourceFingerprint(p);
}

/** Bundles the workflows and writes the bundle (atomically) and its fingerprint. */
export async function buildWorkflowBundle(opts: BundleBuildOptions = {}): Promise<{ codePath: string; bytes: number }> {
  const p = resolvePaths(opts);
  const fingerprint = sourceFingerprint(p);
  const converter = resolvedConverters(p);
  const extras = [
    p.tracing ? 'the tracing interceptors' : '',
    p.failureConverterPath ?? '',
    p.payloadConverterPath ?? '',
  ].filter(Boolean);
  opts.log?.(`bundling workflows from ${p.workflowsPath}${extras.length ? ` with ${extras.join(' and ')}` : ''}`);
  // The bundler's progress report is long; only its warnings and errors are worth a line.
  const log = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const logger = new DefaultLogger('WARN', ({ level, message }) => log(`workflow bundler ${level}: ${message}`));
  const { code } = await bundleWorkflowCode({
    workflowsPath: p.workflowsPath,
    // Loaded once per worker and shared by every cached workflow, not once per workflow:
    // no workflow module keeps state at its top level (test/workers/preload.test.ts).
    preloadModules: [p.workflowsPath],
    workflowInterceptorModules: interceptorModules(p),
    logger,
    ...converter,
  });
  await mkdir(path.dirname(p.outFile), { recursive: true });
  const tmp = `${p.outFile}.${process.pid}.tmp`;
  await writeFile(tmp, code);
  await rename(tmp, p.outFile);
  const manifest: Manifest = {
    workflowsPath: p.workflowsPath,
    tracing: p.tracing,
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
