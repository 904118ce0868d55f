/**
 * Prebuilds the workflow bundles: `node dist/src/workers/build-bundle.js [--if-stale]`.
 * Writes dist/workflow-bundle.js and, for workers with the payload codec, the bundle with
 * its failure converter (see bundle.ts), each with its .json fingerprint; the worker loads
 * them instead of bundling at start. With --if-stale a fresh bundle is left as it is.
 */
import { FAILURE_CONVERTER_PATH } from '../codec';
import { buildWorkflowBundle, ensureWorkflowBundle } from './bundle';

async function main(args: string[]): Promise<void> {
  const log = (line: string): void => {
    process.stderr.write(`reelflow: ${line}\n`);
  };
  for (const variant of [{}, { failureConverterPath: FAILURE_CONVERTER_PATH }]) {
    if (args.includes('--if-stale')) {
      const { codePath, built } = await ensureWorkflowBundle({ ...variant, log });
      if (!built) log(`workflow bundle is fresh: ${codePath}`);
    } else {
      await buildWorkflowBundle({ ...variant, log });
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
