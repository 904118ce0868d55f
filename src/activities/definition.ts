/**
 * validateDefinition: the workflow's own check of its input, with the same validator as
 * `reelflow validate` and `start` (a pipeline started raw, e.g. by `temporal workflow
 * start`, is refused here before any vendor call). It runs as a local activity, so zod
 * never loads in workflow code; it is pure, so running it again is harmless.
 *
 * It also applies what only the worker knows: its default webhook URL (REELFLOW_NOTIFY_URL)
 * for a definition without options.notify, and whether the profile has a signing secret
 * (refused here, before any paid work, rather than at the pipeline's end).
 */
import { ApplicationFailure } from '@temporalio/common';
import { FailureType } from '../failures';
import { DefinitionError, parseDefinition, type PipelineDefinition } from '../definition/definition';
import { NOTIFY_DELIVERY_TIMEOUT } from '../definition/deadlines';
import { webhookSecretVariable } from '../webhooks/secrets';
import type { ActivityDeps } from './deps';

type NotifyDeps = Pick<ActivityDeps, 'webhookSecretFor' | 'notifyDefaultUrl'>;

function withWorkerNotify(def: PipelineDefinition, deps: NotifyDeps): PipelineDefinition {
  const options = def.options;
  const notify = options.notify ?? (deps.notifyDefaultUrl ? { url: deps.notifyDefaultUrl } : undefined);
  if (!notify) return def;
  if (!deps.webhookSecretFor?.(options.profile)) {
    throw new DefinitionError([
      {
        path: 'options.notify.url',
        message: `the worker has no webhook signing secret for credential profile "${options.profile}" (${webhookSecretVariable(options.profile)})`,
      },
    ]);
  }
  return {
    ...def,
    options: { ...options, notify: { deliveryTimeout: NOTIFY_DELIVERY_TIMEOUT, ...notify } },
  };
}

export function createDefinitionActivities(deps: NotifyDeps = {}) {
  return {
    validateDefinition: async (input: { definition: unknown }): Promise<PipelineDefinition> => {
      try {
        return withWorkerNotify(parseDefinition(input.definition), deps);
      } catch (err) {
        if (err instanceof DefinitionError)
          throw ApplicationFailure.nonRetryable(err.message, FailureType.InvalidDefinition, err.issues);
        throw err;
      }
    },
  };
}
