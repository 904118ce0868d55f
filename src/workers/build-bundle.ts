/**
 * Prebuilds the workflow bundle: `node dist/src/workers/build-bundle.js [--if-stale] [--tracing]`.
 * Writes dist/workflow-bundle.js (+ .json fingerprint); the worker loads it instead of
 * bundling at start. With --if-stale it does nothing when the bundle is fresh. With
 * --tracing it also builds dist/workflow-bundle-tracing.js, the bundle a worker with
 * OTEL_EXPORTER_OTLP_ENDPOINT set loads (see bundle.ts).
 */
import { buildWorkflowBundle, ensureWorkflowBundle } from './bundle';

async function main(args: string[]): Promise<void> {
  const log = (line: string): void => {
    process.stderr.write(`reelflow: ${line}\n`);
  };
  for (const tracing of args.includes('--tracing') ? [false, true] : [false]) {
    if (args.includes('--if-stale')) {
      const { codePath, built } = await ensureWorkflowBundle({ log, tracing });
      if (!built) log(`workflow bundle is fresh: ${codePath}`);
    } else {
      await buildWorkflowBundle({ log, tracing });
    }
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
