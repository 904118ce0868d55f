/**
 * What the CLI says about an error: exit code, the lines for stderr, and the JSON error
 * document of --json. Usage, definition and configuration errors exit 2; the rest 1.
 */
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/common';
import { CodecConfigError, ENCODING, KEYS_VARIABLE } from '../../codec';
import { DefinitionError } from '../../definition/definition';
import { MissingCredentialError, VendorConfigError, VendorError } from '../../vendor-api';
import { EXIT } from './output';
import { UsageError, type CommandSpec } from './spec';
import { ArchiveFetchError } from '../client/archived-file';
import { DefinitionFileError } from '../client/definition-file';
import { failureChain } from '../client/pipeline-client';
import { renderFailure } from '../client/progress';
import { RerunRefusedError } from '../client/rerun';
import { ResolveRefusedError } from '../client/resolve-refused';

export interface ErrorReport {
  code: number;
  kind: string;
  lines: string[];
  doc: Record<string, unknown>;
}

/** Usage, definition and configuration errors: exit 2. */
function inputError(err: unknown, command: CommandSpec | undefined): ErrorReport | undefined {
  if (err instanceof UsageError) {
    const help = err.command ?? command?.name;
    return {
      code: EXIT.usage,
      kind: 'usage',
      lines: [`reelflow: ${err.message}`, help ? `see: reelflow ${help} --help` : 'see: reelflow --help'],
      doc: { kind: 'usage', message: err.message, ...(err.option ? { option: err.option } : {}) },
    };
  }
  if (err instanceof DefinitionFileError) {
    return {
      code: EXIT.usage,
      kind: 'definition',
      lines: err.lines(),
      doc: {
        kind: 'definition',
        reason: err.kind,
        file: err.file,
        message: err.message,
        ...(err.line !== undefined ? { line: err.line, column: err.column } : {}),
        ...(err.issues.length ? { issues: err.issues } : {}),
      },
    };
  }
  if (err instanceof DefinitionError) {
    return {
      code: EXIT.usage,
      kind: 'definition',
      lines: err.issues.map((i) => `${i.path || '(root)'}: ${i.message}`),
      doc: { kind: 'definition', message: err.message, issues: err.issues },
    };
  }
  if (err instanceof VendorConfigError || err instanceof MissingCredentialError || err instanceof CodecConfigError) {
    const variable = err instanceof MissingCredentialError ? err.field : err.variable;
    return {
      code: EXIT.usage,
      kind: 'config',
      lines: [`reelflow: ${err.message}`],
      doc: { kind: 'config', message: err.message, ...(variable ? { variable } : {}) },
    };
  }
  return undefined;
}

/** The vendor's answer, as its error carries it. */
function vendorError(err: unknown): ErrorReport | undefined {
  if (!(err instanceof VendorError)) return undefined;
  return {
    code: EXIT.failed,
    kind: 'vendor',
    lines: [`reelflow: ${err.message}`],
    doc: {
      kind: 'vendor',
      type: err.name,
      message: err.message,
      endpoint: err.endpoint,
      ...(err.status !== undefined ? { status: err.status } : {}),
      ...(err.vendorCode !== undefined ? { vendorCode: err.vendorCode } : {}),
      ...(err.field !== undefined ? { field: err.field } : {}),
      ...(err.traceId !== undefined ? { traceId: err.traceId } : {}),
    },
  };
}

/** An archived file that could not be fetched; a missing or malformed variable or option did nothing (exit 2). */
function archiveError(err: unknown): ErrorReport | undefined {
  if (!(err instanceof ArchiveFetchError)) return undefined;
  const kind = err.reason === 'config' ? 'config' : 'archive';
  return {
    code: err.reason === 'config' ? EXIT.usage : EXIT.failed,
    kind,
    lines: [`reelflow: ${err.message}`],
    doc: {
      kind,
      reason: err.reason,
      message: err.message,
      ...(err.option ? { [err.option.startsWith('--') ? 'option' : 'variable']: err.option } : {}),
    },
  };
}

/** A rerun or a resolve the client or the workflow refused. */
function refusal(err: unknown): ErrorReport | undefined {
  if (err instanceof RerunRefusedError) {
    return {
      code: EXIT.failed,
      kind: 'refused',
      lines: [`reelflow: rerun refused: ${err.message}`],
      doc: {
        kind: 'refused',
        reason: err.reason,
        message: err.message,
        pipelineId: err.pipelineId,
        ...(err.output ? { output: err.output } : {}),
        ...(err.task ? { task: err.task } : {}),
      },
    };
  }
  if (err instanceof ResolveRefusedError) {
    // The workflow's own reason, e.g. why a task id failed the proof; the pipeline still waits.
    return {
      code: EXIT.failed,
      kind: 'refused',
      lines: [`reelflow: resolve refused: ${err.message}`],
      doc: {
        kind: 'refused',
        message: err.message,
        workflowId: err.workflowId,
        ...(err.type ? { type: err.type } : {}),
      },
    };
  }
  return undefined;
}

/** A workflow id that names no pipeline, or one in use. */
function workflowIdError(err: unknown): ErrorReport | undefined {
  if (err instanceof WorkflowNotFoundError) {
    const message = `no pipeline with workflow id "${err.workflowId}" in this namespace`;
    return {
      code: EXIT.failed,
      kind: 'not-found',
      lines: [`reelflow: ${message}`],
      doc: { kind: 'not-found', message, workflowId: err.workflowId },
    };
  }
  if (err instanceof WorkflowExecutionAlreadyStartedError) {
    const message = `workflow id "${err.workflowId}" is already in use by a running workflow; choose another --workflow-id`;
    return {
      code: EXIT.failed,
      kind: 'already-started',
      lines: [`reelflow: ${message}`],
      doc: { kind: 'already-started', message, workflowId: err.workflowId },
    };
  }
  return undefined;
}

/** Anything else: its failure chain (an Update's rejection included). */
function failureReport(err: unknown): ErrorReport {
  const chain = failureChain(err);
  // The SDK's own words for a payload it cannot read: say what would read it.
  if (chain.some((line) => line.includes(`Unknown encoding: ${ENCODING}`))) {
    const message = `this pipeline's payloads are encrypted: set ${KEYS_VARIABLE} (and REELFLOW_CODEC_KEY_ID) to the workers' keys`;
    return {
      code: EXIT.failed,
      kind: 'encrypted',
      lines: [`reelflow: ${message}`],
      doc: { kind: 'encrypted', message },
    };
  }
  const label = err instanceof WorkflowUpdateFailedError ? 'rejected' : 'error';
  return {
    code: EXIT.failed,
    kind: label,
    lines: renderFailure(`reelflow: ${label}`, chain.length ? chain : ['unknown error']),
    doc: { kind: label, message: chain[0] ?? String(err), chain },
  };
}

/** Classifies an error: exit code, the lines for stderr, the JSON error document. */
export function reportError(err: unknown, command?: CommandSpec): ErrorReport {
  return (
    inputError(err, command) ??
    vendorError(err) ??
    archiveError(err) ??
    refusal(err) ??
    workflowIdError(err) ??
    failureReport(err)
  );
}
