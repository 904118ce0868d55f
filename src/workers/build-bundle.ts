/**
 * Prebuilds the workflow bundle: `node dist/src/workers/build-bundle.js [--if-stale]`.
 * Writes dist/workflow-bundle.js (+ .json fingerprint); the worker loads it instead of
 * bundling at start. With --if-stale it does nothing when the bundle is fresh.
 */
import { buildWorkflowBundle, ensureWorkflowBundle } from './bundle';

async function main(args: string[]): Promise<void> {
  const log = (line: string): void => {
    process.stderr.write(`reelflow: ${line}\n`);
  };
  if (args.includes('--if-stale')) {
    const { codePath, built } = await ensureWorkflowBundle({ log });
    if (!built) log(`workflow bundle is fresh: ${codePath}`);
  } else {
    await buildWorkflowBundle({ log });
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).catch((err: unknown) => {
    process.stderr.write(
      `reelflow: building the workflow bundle failed: ${err instanceof Error ? err.stack : String(err)}\n`,
    );
    process.exit(1);
  });
}
