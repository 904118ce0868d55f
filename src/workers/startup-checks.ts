/**
 * The worker's start-up checks: `reelflow doctor`'s vendor, callback, archive, codec and
 * tenant profile checks (src/workers/doctor), run once before the workers poll. Each ✗ is a
 * refusal of the start (the default), or a warning with REELFLOW_STRICT_START=0; a check's own warning (`!`) is
 * logged as one and never refuses. The verdict per interface and profile is kept
 * so that a create on an interface whose check failed is refused before any vendor call
 * (src/activities/vendor.ts): no extra call per create. (Temporal's own checks are left
 * out: connecting is the worker's first step anyway, and its pollers are not up yet.)
 */
import type { ActivityDeps } from '../activities';
import { formatChecks, tenantProfilesCheck, vendorCheckId, vendorChecksFromEnv, type CheckResult } from './doctor';
import { localChecks } from './doctor/local';
import type { LogLine } from '../telemetry/logger';
import type { Env, WorkerConfig } from './config';

export class StartupCheckError extends Error {
  override readonly name = 'StartupCheckError';
}

/**
 * The checks' verdict as the activities read it: what failed, by interface and profile.
 * Only a definitive failure (credentials refused, no such path) holds back creates: a vendor
 * that was busy or unreachable at the worker's start is warned about, not gated.
 */
export function vendorVerdicts(checks: readonly CheckResult[]): NonNullable<ActivityDeps['vendorCheckFailed']> {
  const failed = new Map(
    checks.filter((c) => !c.ok && c.definitive).map((c) => [c.id, `${c.detail} (fix: ${c.fix ?? 'see the log'})`]),
  );
  return (profile, iface) => failed.get(vendorCheckId(profile, iface));
}

/** Runs the checks and logs them; throws StartupCheckError in strict mode when one failed. */
export async function runStartupChecks(
  config: WorkerConfig,
  env: Env,
  log: LogLine,
  /** Told the titles of the checks that failed (none: they passed), for /readyz (./health.ts). */
  onChecked: (failed: string[]) => void = () => undefined,
): Promise<NonNullable<ActivityDeps['vendorCheckFailed']>> {
  // A receiver of this process is not listening yet: its health is checked from outside (doctor).
  const { callbackBaseUrl: _unchecked, ...withoutReceiver } = config;
  // Nor is its archive server: REELFLOW_ARCHIVE_URL is checked by `reelflow doctor` only.
  const local = await localChecks(config.callbackPort === undefined ? config : withoutReceiver, {
    ...env,
    REELFLOW_ARCHIVE_URL: undefined,
  });
  const checks = [...(await vendorChecksFromEnv(config, env)), ...local, tenantProfilesCheck(config)];
  const failed = checks.filter((c) => !c.ok);
  const said = (c: CheckResult) => `${c.title}: ${c.detail} (fix: ${c.fix ?? '-'})`;
  for (const c of failed) log(`start-up check failed: ${said(c)}`, 'warn');
  for (const c of checks.filter((c) => c.ok && c.warning)) log(`start-up check warning: ${said(c)}`, 'warn');
  log(`start-up checks: ${formatChecks(checks).at(-1) ?? ''}`);
  onChecked(failed.map((c) => c.title));
  if (failed.length && config.strictStart) throw refusal(failed);
  if (failed.length) log(`REELFLOW_STRICT_START=0: starting with ${failed.length} failed check(s)`, 'warn');
  return vendorVerdicts(checks);
}

/** Names each failed check, what it saw and its fix (they name the variable), then the opt-out. */
function refusal(failed: readonly CheckResult[]): StartupCheckError {
  const each = failed.map((c) => `${c.title}: ${c.detail}${c.fix ? ` (fix: ${c.fix})` : ''}`).join('; ');
  return new StartupCheckError(
    `${failed.length} start-up check(s) failed: ${each}. The worker refuses to start on a failed check; ` +
      'REELFLOW_STRICT_START=0 starts it anyway (not advised: its pipelines may pay for stages that cannot finish)',
  );
}
