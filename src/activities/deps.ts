/**
 * What activities need from the process that hosts them. The worker builds this from
 * its environment; secrets live only inside the vendor clients it returns.
 */
import type { VendorClient } from '../vendor-api';
import type { ObjectStoreTarget } from './archive-store';
import type { WebhookAllowance } from '../webhooks/allowance';
import type { WebhookKey } from '../webhooks/binding';
import type { TenantsConfig } from '../tenants/config';
import type { VendorInterfaceName } from '../contract/stages';

/** The vendor interfaces a start-up check covers, one per credential profile (the stage table's). */
export type { VendorInterfaceName } from '../contract/stages';

export interface ActivityDeps {
  /** The vendor client for a credential profile; throws a clear error for an unknown profile. */
  vendorFor: (profile: string) => VendorClient;
  /**
   * Capability URL for a vendor callback, unique per (workflow, step, attempt, and the
   * pipeline's first run id when given). Undefined when no callback base URL is configured.
   */
  callbackUrlFor?: (workflowId: string, step: string, attempt: number, run?: string) => string;
  /** Folder that archived outputs are written under (a sub-folder per pipeline, one per vendor task in it). */
  archiveRoot: string;
  /** REELFLOW_ARCHIVE_STORE: archive to this object store instead (./archive-store.ts). */
  archiveStore?: ObjectStoreTarget;
  /** Archive downloads may reach loopback/private/link-local addresses (local testing only). Default false. */
  archiveAllowPrivate?: boolean;
  /** Largest archived file in bytes; default 2 GiB. */
  archiveMaxBytes?: number;
  /**
   * A credential profile's webhook signing secret (whsec_…; several space-separated while rotating)
   * and the URLs it may sign for besides the worker's default, if any.
   */
  webhookSecretFor?: (profile: string) => WebhookKey | undefined;
  /** An endpoint's own signing secret (options.notify.secret names it) and its URLs; undefined if the worker lacks it. */
  endpointSecretFor?: (id: string) => WebhookKey | undefined;
  /**
   * Webhook URL for definitions without options.notify (REELFLOW_NOTIFY_URL). Resolved by
   * the delivery activity, never copied into workflow history (its query may hold a token).
   */
  webhookDefaultUrl?: string;
  /** Private webhook targets allowed (REELFLOW_NOTIFY_ALLOW_PRIVATE), for every URL. Default none. */
  webhookAllowPrivate?: WebhookAllowance;
  /** Overall deadline of one webhook POST, answer body included (REELFLOW_NOTIFY_TIMEOUT). Default 30 s. */
  webhookTimeoutMs?: number;
  /**
   * The codec's strict mode (REELFLOW_CODEC_STRICT=1): validateDefinition refuses a start whose
   * input arrived in plaintext and tells the pipeline to drop plaintext signals and Updates.
   */
  codecStrict?: boolean;
  /**
   * The start-up check's verdict for one interface of one profile: undefined when it passed
   * (or was not run), else what failed. Read per create, no vendor call (docs/doctor.md).
   */
  vendorCheckFailed?: (profile: string, iface: VendorInterfaceName) => string | undefined;
  /** The worker's tenant configuration (REELFLOW_TENANTS_FILE); absent: tenants are off (docs/tenants.md). */
  tenants?: TenantsConfig;
}
