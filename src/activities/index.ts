/**
 * All activities, made by one factory from their dependencies (no module state), so the
 * worker injects vendor clients and tests inject theirs. Workflows proxy
 * `ReturnType<typeof createActivities>`.
 */
import { createArchiveActivities } from './archive';
import { createClaimActivities } from './claims';
import { createDefinitionActivities } from './definition';
import { createLedgerActivities } from './ledger';
import { createPreviousRunActivities } from './previous-run';
import { createReuseSourceActivities } from './reuse-source';
import { createGateActivities } from './tenant-gate';
import type { ActivityDeps } from './deps';
import { createVendorActivities } from './vendor';
import { createWebhookActivities } from './webhook';
import { createWebhookOriginActivities } from './webhook-origin';
import { QuerySpacing } from './query-spacing';

export type { ActivityDeps } from './deps';
export type { CallbackRef } from './vendor';
export type { OfferedTaskFacts, OfferedTaskKind } from '../contract/offers';
export type { PreviousRunFacts } from './previous-run';
export type { ReuseSource } from './reuse-source';

export function createActivities(deps: ActivityDeps) {
  // One for the process: a stage's polls and the checks of offered task ids query the same tasks.
  const taskQueries = new QuerySpacing();
  return {
    ...createVendorActivities(deps, taskQueries),
    ...createClaimActivities(deps, taskQueries),
    ...createDefinitionActivities(deps),
    ...createPreviousRunActivities(),
    ...createLedgerActivities(deps.tenants, deps.codecStrict === true),
    ...createReuseSourceActivities(),
    ...createGateActivities(deps.codecStrict === true),
    ...createWebhookActivities({
      ...(deps.webhookSecretFor ? { secretFor: deps.webhookSecretFor } : {}),
      ...(deps.endpointSecretFor ? { endpointSecretFor: deps.endpointSecretFor } : {}),
      ...(deps.webhookDefaultUrl !== undefined ? { defaultUrl: deps.webhookDefaultUrl } : {}),
      ...(deps.webhookAllowPrivate ? { allowPrivate: deps.webhookAllowPrivate } : {}),
      ...(deps.webhookTimeoutMs !== undefined ? { deadlineMs: deps.webhookTimeoutMs } : {}),
    }),
    ...createWebhookOriginActivities(
      deps.webhookDefaultUrl !== undefined ? { defaultUrl: deps.webhookDefaultUrl } : {},
    ),
    ...createArchiveActivities({
      archiveRoot: deps.archiveRoot,
      ...(deps.archiveStore ? { store: deps.archiveStore } : {}),
      allowPrivate: deps.archiveAllowPrivate ?? false,
      ...(deps.archiveMaxBytes !== undefined ? { maxBytes: deps.archiveMaxBytes } : {}),
    }),
  };
}

export type ReelflowActivities = ReturnType<typeof createActivities>;
