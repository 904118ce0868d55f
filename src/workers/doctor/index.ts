/**
 * Preflight checks, read-only: what `reelflow doctor` prints and the worker runs at start.
 * The worker's configuration decides what is checked (its profiles, queue, folders).
 */
import type { Connection } from '@temporalio/client';
import { loadVendorConfig } from '../../vendor-api/config';
import { loadWorkerConfig, type Env, type WorkerConfig } from '../config';
import { fail, type CheckResult } from './check';
import { localChecks } from './local';
import { temporalChecks } from './temporal';
import { tenantProfilesCheck, tenantsFileCheck } from './tenants';
import { vendorChecks } from './vendor';
import { webhookEndpointsCheck } from './webhooks';

export { checksJson, formatChecks, type CheckResult } from './check';
export { vendorCheckId, vendorChecks, VENDOR_INTERFACES, type VendorInterface } from './vendor';
export { tenantProfilesCheck, tenantsFileCheck } from './tenants';
export { webhookEndpointsCheck } from './webhooks';

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** The worker's configuration as a check: its loaders' errors name the variable. */
export function configCheck(env: Env): { config?: WorkerConfig; result: CheckResult } {
  try {
    const config = loadWorkerConfig(env);
    return { config, result: { id: 'config', title: 'worker configuration', ok: true, detail: 'valid' } };
  } catch (err) {
    return { result: fail('config', 'worker configuration', message(err), 'fix the variable the message names') };
  }
}

/** Vendor checks of every profile the worker would serve; a bad vendor config is one ✗. */
export async function vendorChecksFromEnv(config: WorkerConfig, env: Env): Promise<CheckResult[]> {
  try {
    return await vendorChecks(loadVendorConfig(env), config.profiles, env);
  } catch (err) {
    return [fail('vendor.config', 'vendor configuration', message(err), 'fix the variable the message names')];
  }
}

export interface DoctorInput {
  env: Env;
  /** Opens the Temporal connection; a throw is the "reachable" check's ✗. */
  connect: () => Promise<{ connection: Connection; namespace: string }>;
}

async function temporalOf(input: DoctorInput, config: WorkerConfig): Promise<CheckResult[]> {
  let connected: { connection: Connection; namespace: string };
  try {
    connected = await input.connect();
  } catch (err) {
    return [
      fail('temporal.reachable', 'Temporal reachable', message(err), 'check TEMPORAL_ADDRESS (or --address) and TLS'),
    ];
  }
  return temporalChecks({ ...connected, taskQueue: config.taskQueue, profiles: config.profiles });
}

/** Every check, in a stable order. */
export async function runDoctor(input: DoctorInput): Promise<CheckResult[]> {
  const { config, result } = configCheck(input.env);
  if (!config) return [result];
  const [temporal, vendor, local] = await Promise.all([
    temporalOf(input, config),
    vendorChecksFromEnv(config, input.env),
    localChecks(config, input.env),
  ]);
  const webhooks = webhookEndpointsCheck(config, input.env);
  return [result, ...temporal, ...vendor, ...local, webhooks, tenantsFileCheck(config), tenantProfilesCheck(config)];
}
