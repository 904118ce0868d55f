/**
 * Prebuilds the workflow bundles: `node dist/workers/build-bundle.js [--if-stale] [--tracing] [--codec]`.
 * Writes dist/workflow-bundle.js (+ .json fingerprint); the worker loads it instead of
 * bundling at start. With --if-stale a fresh bundle is left as it is. Each flag also builds
 * the variants a worker with that setting loads (see bundle.ts): --tracing those with the
 * OpenTelemetry interceptors (OTEL_EXPORTER_OTLP_ENDPOINT set), --codec those with the codec's
 * failure and payload converters (REELFLOW_CODEC_KEYS set); both flags: all four.
 */
import { FAILURE_CONVERTER_PATH, PAYLOAD_CONVERTER_PATH } from '../codec';
import { buildWorkflowBundle, ensureWorkflowBundle, type BundleVariant } from './bundle';

const FLAGS = ['--if-stale', '--tracing', '--codec'];

async function main(args: string[]): Promise<void> {
  const log = (line: string): void => {
    process.stderr.write(`reelflow: ${line}\n`);
  };
  const tracings = args.includes('--tracing') ? [false, true] : [false];
  const codec = { failureConverterPath: FAILURE_CONVERTER_PATH, payloadConverterPath: PAYLOAD_CONVERTER_PATH };
  const converters = args.includes('--codec') ? [{}, codec] : [{}];
  const variants: BundleVariant[] = tracings.flatMap((tracing) =>
    converters.map((converter) => ({ tracing, ...converter })),
  );
  for (const variant of variants) {
    if (args.includes('--if-stale')) {
      const { codePath, built } = await ensureWorkflowBundle({ ...variant, log });
      if (!built) log(`workflow bundle is fresh: ${codePath}`);
    } else {
      await buildWorkflowBundle({ ...variant, log });
    }
  }
}

if (require.main === module) {
  const unknown = process.argv.slice(2).filter((a) => !FLAGS.includes(a));
  if (unknown.length) {
    process.stderr.write(`reelflow: build-bundle: unknown argument ${unknown.join(' ')} (known: ${FLAGS.join(' ')})\n`);
    process.exit(2);
  }
  main(process.argv.slice(2)).catch((err: unknown) => {
    process.stderr.write(
      `reelflow: building the workflow bundle failed: ${err instanceof Error ? err.stack : String(err)}\n`,
    );
    process.exit(1);
  });
}
