/**
 * The package as a user installs it: `npm pack` (its `prepare` builds the product and the
 * workflow bundle), then `npm install <tarball>` into an empty project outside this
 * repository. There, with nothing of the source tree in reach:
 * - the tarball holds the product only (no tests, no tools, no source maps), and the docs/
 *   pages its README links to;
 * - a snippet that uses the public API (`reelflow`, `reelflow/worker`, `reelflow/emulator`)
 *   type-checks, and a wrong definition does not;
 * - `npx reelflow --help` prints the synopsis;
 * - `npx reelflow worker` runs on the prebuilt bundle, against the test server and the
 *   installed emulator, and the snippet's pipeline completes (the archive downloads the
 *   emulator's video: its media comes from the package too).
 * See docs/architecture.md ("What ships").
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { DEFAULT_ACCESS_TOKENS, DEFAULT_API_KEYS } from '../../src/emulator';
import { relativeLinks } from '../layout/markdown';

const ROOT = path.resolve(__dirname, '../..');
jest.setTimeout(600_000);

async function pollUntil<T>(get: () => T | undefined, ms: number, what: string): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = get();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

function sh(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env) {
  const res = spawnSync(cmd, args, { cwd, env, encoding: 'utf8', maxBuffer: 64 << 20 });
  if (res.error) throw res.error;
  return { code: res.status ?? 1, out: res.stdout, err: res.stderr };
}
function must(cmd: string, args: string[], cwd: string, env?: NodeJS.ProcessEnv): string {
  const r = sh(cmd, args, cwd, env);
  if (r.code !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.code}:\n${r.err}\n${r.out}`);
  return r.out;
}

interface PackedFile {
  path: string;
}
let project: string;
let tarball: string;
let packed: { files: PackedFile[]; size: number; unpackedSize: number };

beforeAll(() => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'reelflow-install-'));
  // `npm pack` runs prepare: the product build and the prebuilt workflow bundle.
  const out = must('npm', ['pack', '--json', '--pack-destination', dir], ROOT);
  packed = (JSON.parse(out.slice(out.indexOf('['))) as (typeof packed & { filename: string })[])[0];
  tarball = path.join(dir, (JSON.parse(out.slice(out.indexOf('['))) as { filename: string }[])[0].filename);
  project = path.join(dir, 'app');
  mkdirSync(project);
  writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'app', private: true }));
  // The user's own TypeScript and Node types; the npm cache of this checkout makes it quick.
  must(
    'npm',
    ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball, `typescript@${tsVersion()}`, '@types/node@20'],
    project,
  );
});

afterAll(() => {
  if (project) rmSync(path.dirname(project), { recursive: true, force: true });
});

function tsVersion(): string {
  return (
    JSON.parse(readFileSync(path.join(ROOT, 'node_modules/typescript/package.json'), 'utf8')) as { version: string }
  ).version;
}

test('the tarball holds the product only', () => {
  const files = packed.files.map((f) => f.path);
  expect(files).toEqual(
    expect.arrayContaining([
      'package.json',
      'dist/index.js',
      'dist/index.d.ts',
      'dist/workers/index.js',
      'dist/emulator/index.js',
      'dist/starters/cli/main.js',
      'dist/workflow-bundle.js',
      'dist/workflow-bundle.js.json',
      'dist/emulator/media/generated.mp4',
      'schema/pipeline-definition.schema.json',
      'README.md',
      'docs/vendor-contract.md',
      'docs/definitions.md',
    ]),
  );
  const stray = files.filter((f) =>
    /^(src|test|tools|bench|scripts)\/|\.map$|tsbuildinfo|^dist\/(test|tools)\//.test(f),
  );
  expect(stray).toEqual([]);
});

test('every relative link of the packed README and docs/ leads to a file in the tarball', () => {
  const files = new Set(packed.files.map((f) => f.path));
  const pages = [...files].filter((f) => f === 'README.md' || /^docs\/[^/]+\.md$/.test(f));
  expect(pages.length).toBeGreaterThan(5);
  const dead = pages.flatMap((page) =>
    relativeLinks(readFileSync(path.join(ROOT, page), 'utf8'))
      .map((target) => target.split('#')[0])
      .filter((file) => file !== '')
      .map((file) => path.posix.normalize(path.posix.join(path.posix.dirname(page), file)))
      // Links into the source (src/, tools/) are for readers of the repository: it never ships them.
      .filter((file) => !/^(src|tools)\//.test(file) && !files.has(file))
      .map((file) => `${page}: ${file}`),
  );
  expect(dead).toEqual([]);
});

const SNIPPET = `
import { connectClient, definePipeline, runPipeline, PipelineFailedError, type PipelineDefinitionInput } from 'reelflow';
import { isBundleFresh } from 'reelflow/worker';
import { startEmulator, DEFAULT_API_KEYS } from 'reelflow/emulator';

export const definition: PipelineDefinitionInput = definePipeline({
  name: 'installed',
  generation: { model: 'video-model-1', content: [{ type: 'text', text: 'a boat at dusk' }], ratio: '16:9', duration: 5 },
});

export async function main(): Promise<void> {
  const { client, close } = await connectClient();
  try {
    const result = await runPipeline(client, definition, { taskQueue: process.env.REELFLOW_TASK_QUEUE });
    console.log(JSON.stringify({ generated: result.generation?.videoUrl, archived: result.archived?.length }));
  } catch (err) {
    if (err instanceof PipelineFailedError) console.error(err.type, err.stage, err.message);
    throw err;
  } finally {
    await close();
  }
}
export { isBundleFresh, startEmulator, DEFAULT_API_KEYS };
if (require.main === module) void main();
`;

/** The two module resolutions users have: node16 (reads `exports`) and the older node10 (reads `typesVersions`). */
const tsconfig = (moduleResolution: 'node16' | 'node10') => ({
  compilerOptions: {
    strict: true,
    module: moduleResolution === 'node16' ? 'node16' : 'commonjs',
    moduleResolution,
    target: 'ES2022',
    outDir: 'out',
    types: ['node'],
    skipLibCheck: true,
  },
  files: ['snippet.ts'],
});

test.each(['node16', 'node10'] as const)(
  'a snippet on the public API type-checks against the installed package (%s resolution)',
  (resolution) => {
    writeFileSync(path.join(project, 'snippet.ts'), SNIPPET);
    writeFileSync(path.join(project, 'tsconfig.json'), JSON.stringify(tsconfig(resolution)));
    const r = sh(process.execPath, ['node_modules/typescript/bin/tsc', '-p', '.'], project);
    expect(r.out).toBe('');
    expect(r.code).toBe(0);
    expect(existsSync(path.join(project, 'out', 'snippet.js'))).toBe(true);
  },
);

test('a wrong definition does not type-check', () => {
  writeFileSync(
    path.join(project, 'wrong.ts'),
    `import { definePipeline } from 'reelflow';\ndefinePipeline({ name: 'x', erase: 'yes' });\n`,
  );
  const args = ['--noEmit', '--strict', '--skipLibCheck', '--types', 'node', 'wrong.ts'];
  const wrong = sh(process.execPath, ['node_modules/typescript/bin/tsc', ...args], project);
  expect(wrong.code).not.toBe(0);
  expect(wrong.out).toMatch(/^wrong\.ts\(2,\d+\): error TS2322: Type 'string' is not assignable/m);
});

test('npx reelflow --help prints the synopsis', () => {
  const out = must('npx', ['--no-install', 'reelflow', '--help'], project);
  expect(out).toContain('reelflow run <file>');
  expect(out).toContain('reelflow worker');
});

describe('the installed worker runs the snippet pipeline', () => {
  let emulator: ChildProcess | undefined;
  let worker: ChildProcess | undefined;
  let workerLog = '';

  afterAll(() => {
    emulator?.kill('SIGKILL');
    // The worker runs in a process group of its own (detached): nothing it started outlives the test.
    if (worker?.pid === undefined) return;
    try {
      process.kill(-worker.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  });

  test('reelflow worker on the prebuilt bundle, the installed emulator, a pipeline to completion', async () => {
    const installed = path.join(project, 'node_modules', 'reelflow');
    const fresh = must(
      process.execPath,
      ['-e', "process.stdout.write(String(require('reelflow/worker').isBundleFresh()))"],
      project,
    );
    expect(fresh).toBe('true');

    emulator = spawn(process.execPath, [path.join(installed, 'dist/emulator/main.js'), '--port', '0'], {
      cwd: project,
    });
    let emulatorOut = '';
    emulator.stdout!.on('data', (b: Buffer) => (emulatorOut += b.toString()));
    const url = await pollUntil(
      () => /https?:\/\/127\.0\.0\.1:\d+/.exec(emulatorOut)?.[0],
      20_000,
      'the emulator to listen',
    );

    const taskQueue = `installed-${randomUUID().slice(0, 8)}`;
    const env = {
      PATH: process.env.PATH,
      HOME: project,
      TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS,
      TEMPORAL_NAMESPACE: process.env.TEMPORAL_NAMESPACE ?? 'default',
      VENDOR_BASE_URL: url,
      VENDOR_IDENTITY_URL: url,
      REELFLOW_PROFILE_DEFAULT_API_KEY: DEFAULT_API_KEYS[0],
      REELFLOW_PROFILE_DEFAULT_ACCESS_TOKEN: DEFAULT_ACCESS_TOKENS[0],
      REELFLOW_TASK_QUEUE: taskQueue,
      REELFLOW_ARCHIVE_DIR: path.join(project, 'archive'),
      REELFLOW_ARCHIVE_ALLOW_PRIVATE: '1', // the emulator serves its media on 127.0.0.1
    };
    // The command `npx reelflow worker` runs (npm's bin link), without npm in between to catch signals.
    worker = spawn(path.join(project, 'node_modules', '.bin', 'reelflow'), ['worker'], {
      cwd: project,
      env,
      detached: true,
    });
    for (const s of [worker.stdout!, worker.stderr!]) s.on('data', (b: Buffer) => (workerLog += b.toString()));
    await pollUntil(() => /polling/.test(workerLog) || undefined, 60_000, 'the worker to poll');

    const run = sh(process.execPath, ['out/snippet.js'], project, env);
    expect(run.err).toBe('');
    const result = JSON.parse(run.out.trim()) as { generated?: string; archived?: number };
    expect(result.generated).toMatch(/^https?:\/\//);
    expect(result.archived).toBeGreaterThan(0);
    // The prebuilt bundle was loaded: the worker never bundled the workflows itself.
    expect(workerLog).not.toMatch(/bundling workflows/);
    expect(existsSync(path.join(installed, 'dist', 'workflow-bundle.js'))).toBe(true);

    // SIGTERM drains the worker and `reelflow worker` exits 0.
    const exited = new Promise<number | null>((resolve) => worker!.once('exit', (code) => resolve(code)));
    worker.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});
