/**
 * What activities need from the process that hosts them. The worker builds this from
 * its environment; secrets live only inside the vendor clients it returns.
 */
import type { VendorClient } from '../vendor-api';

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
  /** Archive downloads may reach loopback/private/link-local addresses (local testing only). Default false. */
  archiveAllowPrivate?: boolean;
  /** Largest archived file in bytes; default 2 GiB. */
  archiveMaxBytes?: number;
  /** A credential profile's webhook signing secret (whsec_…), if the worker has one. */
  webhookSecretFor?: (profile: string) => string | undefined;
  /** Webhook URL for definitions without options.notify (REELFLOW_NOTIFY_URL). */
  notifyDefaultUrl?: string;
  /** The default URL may be a loopback/private address (REELFLOW_NOTIFY_ALLOW_PRIVATE). Default false. */
  notifyDefaultAllowPrivate?: boolean;
}
