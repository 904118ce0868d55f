/**
 * A definition travels as the pipeline workflow's input, and Temporal refuses an input over
 * its blob size limit (the server's `limit.blobSize.error`, 2 MiB by default) with a gRPC
 * "Blob data size exceeds limit". Measured here the way the server counts it (the encoded
 * input payloads), so `validate` and `start` refuse it first, saying the size and the limit.
 */
import { defaultPayloadConverter } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { DefinitionError, type PipelineDefinitionInput } from '../../definition/definition';

/** The Temporal server's default blob size limit. */
export const DEFAULT_MAX_PAYLOAD_BYTES = 2 * 1024 * 1024;
export const MAX_PAYLOAD_ENV = 'REELFLOW_MAX_PAYLOAD_BYTES';

/** The limit: an explicit value, else $REELFLOW_MAX_PAYLOAD_BYTES, else the server default. */
export function resolveMaxPayloadBytes(explicit?: number, env: NodeJS.ProcessEnv = process.env): number {
  if (explicit !== undefined) {
    if (!Number.isSafeInteger(explicit) || explicit < 1)
      throw new RangeError(`maxPayloadBytes: a positive whole number of bytes (got ${explicit})`);
    return explicit;
  }
  const raw = env[MAX_PAYLOAD_ENV]?.trim();
  if (!raw) return DEFAULT_MAX_PAYLOAD_BYTES;
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(Number(raw)) || Number(raw) < 1) {
    throw new RangeError(
      `${MAX_PAYLOAD_ENV}: a positive whole number of bytes (got ${JSON.stringify(raw.slice(0, 40))})`,
    );
  }
  return Number(raw);
}

function bytes(n: number): string {
  const mib = n / 1024 / 1024;
  return `${n.toLocaleString('en-US')} bytes${mib >= 0.1 ? ` (${mib.toFixed(mib < 10 ? 2 : 0)} MiB)` : ''}`;
}

/** Bytes of the workflow input `{ definition }` as Temporal counts them (encoded Payloads). */
export function workflowInputBytes(definition: unknown): number {
  const payload = defaultPayloadConverter.toPayload({ definition });
  return temporal.api.common.v1.Payloads.encode({ payloads: [payload] }).finish().length;
}

/** Refuses `size` bytes of workflow input over `maxPayloadBytes` with a DefinitionError saying both. */
export function checkWorkflowInputBytes(size: number, maxPayloadBytes: number): void {
  if (size > maxPayloadBytes) {
    throw new DefinitionError([
      {
        path: '',
        message:
          `is ${bytes(size)} as the workflow's input, over Temporal's payload limit of ${bytes(maxPayloadBytes)}: ` +
          `split it into several pipelines (if your server allows more, set ${MAX_PAYLOAD_ENV} or --max-payload-bytes)`,
      },
    ]);
  }
}

/**
 * The definition as it travels (a JSON round trip: what the workflow will parse) and its
 * size as workflow input, refused with a DefinitionError when it is not JSON or too big for Temporal.
 */
export function measuredOnTheWire(
  definition: unknown,
  maxPayloadBytes: number,
): { wire: PipelineDefinitionInput; bytes: number } {
  let text: string | undefined;
  try {
    text = JSON.stringify(definition);
  } catch (err) {
    const reason = err instanceof Error ? err.message.split('\n')[0] : String(err);
    throw new DefinitionError([{ path: '', message: `is not JSON (${reason})` }]);
  }
  if (text === undefined)
    throw new DefinitionError([{ path: '', message: 'is not JSON: a pipeline definition is a JSON object' }]);
  const wire = JSON.parse(text) as PipelineDefinitionInput;
  const size = workflowInputBytes(wire);
  checkWorkflowInputBytes(size, maxPayloadBytes);
  return { wire, bytes: size };
}

/** measuredOnTheWire without the size. */
export function definitionOnTheWire(definition: unknown, maxPayloadBytes: number): PipelineDefinitionInput {
  return measuredOnTheWire(definition, maxPayloadBytes).wire;
}
