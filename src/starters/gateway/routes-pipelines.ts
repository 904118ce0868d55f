/**
 * Start, batch, list, status, result, cancel, resolve and rerun (docs/api.md). Every action
 * goes through the caller's own client (its identity names the token, context.ts) and is
 * logged with the token's name; a start also carries it in the memo (`startedBy`).
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { executionInfoFromRaw } from '@temporalio/client/lib/helpers';
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/common';
import { DefinitionFileError, validateDefinitionValue } from '../client/definition-file';
import {
  buildListQuery,
  checkIdPart,
  executionStatusName,
  pipelineStatus,
  resolveCreate,
  startPipeline,
  summarizeExecution,
  type VideoPipelineWorkflow,
} from '../client/pipeline-client';
import { startBatch, defaultBatchId } from '../client/batch';
import { rerunPipeline, RerunRefusedError, type RerunFrom } from '../client/rerun';
import { ResolveRefusedError } from '../client/resolve-refused';
import { endOf } from '../client/watch';
import type { CreateDecision, PipelineResult } from '../../contract/messages';
import type { Caller } from './config';
import { clientFor, type GatewayDeps, type GatewayEnv } from './context';
import { ownedPipeline, tenantScope } from './access';
import { ProblemError } from './problem';
import * as R from './schemas';

/** The workflow id an Idempotency-Key maps to: namespaced by tenant (`_admin` for admin starts). */
export function idempotentWorkflowId(caller: Caller, key: string): string {
  // ":" is in neither a tenant id nor a key, so two tenants' ids never meet.
  return `reelflow:${caller.admin ? '_admin' : caller.tenant}:${key}`;
}

/** A tenant's batch ids live under its tenant, so another tenant's same id is another batch. */
export function scopedBatchId(caller: Caller, batchId: string): string {
  return caller.admin || batchId.startsWith(`${caller.tenant}.`) ? batchId : `${caller.tenant}.${batchId}`;
}

function definitionProblem(err: DefinitionFileError): ProblemError {
  const errors = err.issues.map((i) => ({ path: i.path, message: i.message }));
  return new ProblemError(422, 'invalid-definition', err.lines().join('; '), { errors });
}

function badRequest(err: unknown): never {
  if (err instanceof DefinitionFileError) throw definitionProblem(err);
  if (err instanceof RangeError) throw new ProblemError(400, 'invalid-request', err.message);
  throw err;
}

/** A tenant token's starts run as its tenant, whatever the definition says. */
const tenantOf = (caller: Caller) => (caller.admin ? {} : { tenant: caller.tenant });

function startRoutes(app: OpenAPIHono<GatewayEnv>, deps: GatewayDeps): void {
  const { log } = deps;
  app.openapi(R.startPipelineRoute, async (c) => {
    const caller = c.get('caller');
    const { definition, priority } = c.req.valid('json');
    const key = c.req.valid('header')['idempotency-key'];
    let loaded;
    try {
      loaded = validateDefinitionValue(definition, 'definition');
    } catch (err) {
      badRequest(err);
    }
    const workflowId = key !== undefined ? idempotentWorkflowId(caller, key) : undefined;
    try {
      const handle = await startPipeline(clientFor(deps.client, caller), loaded.input, {
        ...tenantOf(caller),
        ...(priority ? { priority } : {}),
        ...(workflowId ? { workflowId, rejectDuplicate: true } : {}),
        ...(deps.taskQueue ? { taskQueue: deps.taskQueue } : {}),
        memo: { startedBy: caller.name },
      });
      log.info({ actor: caller.name, action: 'start', pipelineId: handle.workflowId }, 'pipeline started');
      return c.json({ pipelineId: handle.workflowId, runId: handle.firstExecutionRunId, created: true }, 201);
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError && workflowId) {
        return c.json({ pipelineId: workflowId, created: false }, 200);
      }
      return badRequest(err);
    }
  });

  app.openapi(R.startBatchRoute, async (c) => {
    const caller = c.get('caller');
    const body = c.req.valid('json');
    const text = body.definitions.map((d) => JSON.stringify(d)).join('\n');
    let batchId: string;
    try {
      batchId = checkIdPart('batchId', scopedBatchId(caller, body.batchId ?? defaultBatchId(text)));
    } catch (err) {
      return badRequest(err);
    }
    const report = await startBatch(clientFor(deps.client, caller), text, {
      batchId,
      source: 'definitions',
      ...tenantOf(caller),
      ...(deps.taskQueue ? { taskQueue: deps.taskQueue } : {}),
    });
    log.info({ actor: caller.name, action: 'batch', batchId, started: report.started.length }, 'batch started');
    return c.json(report, 200);
  });
}

type RawExecution = Parameters<typeof executionInfoFromRaw>[0];

/**
 * One listed execution. Its memo is a payload: one this gateway cannot decode (encrypted by a
 * codec whose keys it lacks) leaves the pipeline listed from its search attributes alone,
 * rather than failing the whole page.
 */
async function readableInfo(client: GatewayDeps['client'], raw: RawExecution) {
  const { loadedDataConverter, namespace } = client.options;
  try {
    return await executionInfoFromRaw(raw, loadedDataConverter, raw, namespace);
  } catch {
    // On the message itself: a copy would lose the defaults its prototype holds (a Long, say).
    raw.memo = null;
    return executionInfoFromRaw(raw, loadedDataConverter, raw, namespace);
  }
}

function readRoutes(app: OpenAPIHono<GatewayEnv>, deps: GatewayDeps): void {
  app.openapi(R.listPipelinesRoute, async (c) => {
    const caller = c.get('caller');
    const q = c.req.valid('query');
    const tenant = tenantScope(caller, q.tenant);
    let query: string;
    try {
      query = buildListQuery({
        ...(q.state ? { status: q.state } : {}),
        ...(q.batch ? { batchId: scopedBatchId(caller, q.batch) } : {}),
        ...(tenant !== undefined ? { tenant } : {}),
      });
    } catch (err) {
      return badRequest(err);
    }
    const { client } = deps;
    const page = await client.workflowService.listWorkflowExecutions({
      namespace: client.options.namespace,
      query,
      pageSize: q.pageSize ?? 50,
      ...(q.pageToken ? { nextPageToken: Buffer.from(q.pageToken, 'base64url') } : {}),
    });
    const infos = await Promise.all(page.executions.map((raw) => readableInfo(client, raw)));
    const next = page.nextPageToken?.length ? Buffer.from(page.nextPageToken).toString('base64url') : undefined;
    return c.json({ pipelines: infos.map(summarizeExecution), ...(next ? { nextPageToken: next } : {}) }, 200);
  });

  app.openapi(R.statusRoute, async (c) => {
    const { id } = c.req.valid('param');
    const d = await ownedPipeline(deps.client, c.get('caller'), id);
    const executionStatus = executionStatusName(d.status.name);
    try {
      const status = await pipelineStatus(deps.client, id, { timeoutMs: 10_000 });
      return c.json({ ...status, executionStatus }, 200);
    } catch {
      // No worker answered: what Temporal itself knows.
      return c.json({ pipelineId: id, executionStatus, statusQueryAnswered: false }, 200);
    }
  });

  app.openapi(R.resultRoute, async (c) => {
    const { id } = c.req.valid('param');
    const d = await ownedPipeline(deps.client, c.get('caller'), id);
    if (d.status.name === 'RUNNING') throw new ProblemError(409, 'not-finished', `pipeline ${id} is still running`);
    const settled = await deps.client.workflow
      .getHandle<VideoPipelineWorkflow>(id)
      .result()
      .then(
        (result: PipelineResult) => ({ result }),
        (error: unknown) => ({ error }),
      );
    return c.json(endOf(id, settled), 200);
  });
}

function actionRoutes(app: OpenAPIHono<GatewayEnv>, deps: GatewayDeps): void {
  const { log } = deps;
  app.openapi(R.cancelRoute, async (c) => {
    const caller = c.get('caller');
    const { id } = c.req.valid('param');
    const d = await ownedPipeline(deps.client, caller, id);
    if (d.status.name !== 'RUNNING') {
      throw new ProblemError(409, 'conflict', `pipeline ${id} already ${executionStatusName(d.status.name)}`);
    }
    await clientFor(deps.client, caller).workflow.getHandle(id).cancel();
    log.info({ actor: caller.name, action: 'cancel', pipelineId: id }, 'cancellation requested');
    return c.json({ pipelineId: id, cancelRequested: true as const }, 202);
  });

  app.openapi(R.resolveRoute, async (c) => {
    const caller = c.get('caller');
    const { id } = c.req.valid('param');
    const body = c.req.valid('json');
    await ownedPipeline(deps.client, caller, id);
    const decision: CreateDecision =
      'taskId' in body ? { taskId: body.taskId } : 'resubmit' in body ? { resubmit: true } : { abandon: true };
    try {
      const res = await resolveCreate(
        clientFor(deps.client, caller),
        id,
        decision,
        body.step ? { step: body.step } : {},
      );
      log.info({ actor: caller.name, action: 'resolve', pipelineId: id, decision }, 'decision accepted');
      return c.json(res, 200);
    } catch (err) {
      if (err instanceof ResolveRefusedError) throw new ProblemError(409, 'resolve-refused', err.message);
      if (err instanceof WorkflowNotFoundError) throw new ProblemError(409, 'conflict', `pipeline ${id} has ended`);
      throw err;
    }
  });

  app.openapi(R.rerunRoute, async (c) => {
    const caller = c.get('caller');
    const { id } = c.req.valid('param');
    const body = c.req.valid('json') as { from?: string } | undefined;
    await ownedPipeline(deps.client, caller, id);
    try {
      const plan = await rerunPipeline(clientFor(deps.client, caller), id, {
        ...(body?.from ? { from: body.from as RerunFrom } : {}),
        memo: { startedBy: caller.name, rerunOf: id },
      });
      const pipelineId = plan.handle.workflowId;
      log.info({ actor: caller.name, action: 'rerun', pipelineId, rerunOf: id }, 'rerun started');
      return c.json({ pipelineId, from: plan.from, reused: plan.reused }, 201);
    } catch (err) {
      if (err instanceof RerunRefusedError) throw new ProblemError(409, 'rerun-refused', err.message);
      throw err;
    }
  });
}

export function pipelineRoutes(app: OpenAPIHono<GatewayEnv>, deps: GatewayDeps): void {
  startRoutes(app, deps);
  readRoutes(app, deps);
  actionRoutes(app, deps);
}
