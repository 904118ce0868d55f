/**
 * Vendor preflight: for each credential profile, each interface answers a read-only
 * call with that profile's credentials. Asset management lists its groups (a body of a
 * known shape); generation, erase and review are asked for a task id nobody created
 * (./vendor-probe.ts). No call creates anything or costs money.
 */
import {
  createVendorClient,
  ForbiddenError,
  ResponseShapeError,
  UnauthorizedError,
  newTraceId,
  profileVariable,
  resolveProfile,
  type VendorConfig,
  type VendorCredentials,
} from '../../vendor-api';
import type { Env } from '../../vendor-api/config';
import { fail, guarded, pass, wrong, type CheckResult } from './check';
import { PROBE_RETRY_MS, PROBE_TRIES, probe, probeTaskId, type ProbeVerdict } from './vendor-probe';
import { VENDOR_INTERFACES, type VendorInterfaceName as VendorInterface } from '../../contract/stages';

// One check per vendor interface of the stage table (docs/architecture.md, "How to add a stage").
export { VENDOR_INTERFACES, type VendorInterfaceName as VendorInterface } from '../../contract/stages';

/** The check id of one interface of one profile: the worker keys its start-up gate by it. */
export const vendorCheckId = (profile: string, iface: VendorInterface): string => `vendor.${profile}.${iface}`;

interface Target {
  url: string;
  headers: Record<string, string>;
  /** What to set when the path is wrong. */
  pathFix: string;
}

function target(iface: Exclude<VendorInterface, 'assets'>, vendor: VendorConfig, creds: VendorCredentials): Target {
  const id = probeTaskId();
  if (iface === 'review') {
    return {
      url: `${vendor.identityUrl}/api/task/${id}`,
      headers: { 'x-access-token': creds.accessToken ?? '', 'x-track-id': newTraceId() },
      pathFix: `check VENDOR_IDENTITY_URL (${vendor.identityUrl}): review queries go to /api/task/{id} under it`,
    };
  }
  const auth = { authorization: `Bearer ${creds.apiKey ?? ''}` };
  if (iface === 'generation') {
    return {
      url: `${vendor.baseUrl}/v1/task/get/${id}`,
      headers: auth,
      pathFix: `check VENDOR_BASE_URL (${vendor.baseUrl}): generation queries go to /v1/task/get/{id} under it`,
    };
  }
  return {
    url: `${vendor.baseUrl}/api/v1/${vendor.pathWord}-tasks/${id}`,
    headers: { ...auth, 'x-trace-id': newTraceId() },
    pathFix: `VENDOR_PATH_WORD is "${vendor.pathWord}": set it to the word your vendor's erase paths carry (/api/v1/<word>-tasks/{id}), or check VENDOR_BASE_URL`,
  };
}

const NEEDS: Record<VendorInterface, 'apiKey' | 'accessToken'> = {
  generation: 'apiKey',
  erase: 'apiKey',
  assets: 'accessToken',
  review: 'accessToken',
};

function verdictResult(id: string, title: string, v: ProbeVerdict, t: Target, credFix: string): CheckResult {
  const path = new URL(t.url).pathname.replace(/reelflow-doctor-[0-9a-f]+$/, '{id}');
  switch (v.kind) {
    case 'answered':
      return pass(id, title, `credentials accepted, ${path} answered an unknown id with the vendor's own error`);
    case 'auth':
      return wrong(id, title, `credentials refused (HTTP ${v.status})`, credFix);
    case 'no-route':
      return wrong(id, title, `${path} is not a vendor endpoint (bare HTTP ${v.status})`, t.pathFix);
    case 'unexpected':
      return fail(id, title, `${path} answered HTTP ${v.status}, not the vendor's not-found error`, t.pathFix);
    case 'unreachable':
      return fail(
        id,
        title,
        `unreachable (${v.reason})`,
        `check that ${new URL(t.url).origin} is the vendor and reachable`,
      );
  }
}

async function assetsCheck(vendor: VendorConfig, creds: VendorCredentials, id: string, title: string, credFix: string) {
  const client = createVendorClient({ ...vendor, accessToken: creds.accessToken ?? '' });
  try {
    const res = await listGroupsTrying(client);
    return pass(id, title, `credentials accepted, ListAssetGroups listed ${res.Total} group(s)`);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    if (err instanceof UnauthorizedError || err instanceof ForbiddenError) {
      return wrong(id, title, `credentials refused: ${message}`, credFix);
    }
    if (err instanceof ResponseShapeError) {
      const fix = `the answer is not an asset-management list: check VENDOR_IDENTITY_URL (${vendor.identityUrl})`;
      return wrong(id, title, message, fix);
    }
    // A busy or unreachable vendor, a 5xx: shown, but it does not prove the configuration wrong.
    const fix = `check VENDOR_IDENTITY_URL (${vendor.identityUrl}): asset management is POST /api/asset-management under it`;
    return fail(id, title, message, fix);
  } finally {
    await client.close();
  }
}

/** ListAssetGroups, asked again like a probe (./vendor-probe.ts) after an error that may be a moment's. */
async function listGroupsTrying(client: ReturnType<typeof createVendorClient>) {
  for (let tried = 1; ; tried++) {
    try {
      return await client.assets.listAssetGroups({});
    } catch (err) {
      const lasting =
        err instanceof UnauthorizedError || err instanceof ForbiddenError || err instanceof ResponseShapeError;
      if (lasting || tried >= PROBE_TRIES) throw err;
      await new Promise((r) => setTimeout(r, PROBE_RETRY_MS * tried));
    }
  }
}

async function interfaceCheck(
  vendor: VendorConfig,
  creds: VendorCredentials,
  iface: VendorInterface,
): Promise<CheckResult> {
  const id = vendorCheckId(creds.profile, iface);
  const title = `vendor ${iface} (profile ${creds.profile})`;
  const variable = profileVariable(creds.profile, NEEDS[iface]);
  if (!creds[NEEDS[iface]]) return wrong(id, title, `${variable} is not set`, `set ${variable}`);
  const credFix = `check ${variable}: the vendor refused it`;
  if (iface === 'assets') return assetsCheck(vendor, creds, id, title, credFix);
  const t = target(iface, vendor, creds);
  return verdictResult(id, title, await probe(t.url, t.headers, vendor.timeouts.headersMs), t, credFix);
}

/** Every interface of every profile, all at once. */
export async function vendorChecks(
  vendor: VendorConfig,
  profiles: readonly string[],
  env: Env,
): Promise<CheckResult[]> {
  const all = profiles.flatMap((profile) =>
    VENDOR_INTERFACES.map((iface) =>
      guarded(vendorCheckId(profile, iface), `vendor ${iface} (profile ${profile})`, 'see the message', async () =>
        interfaceCheck(vendor, resolveProfile(profile, env, []), iface),
      ),
    ),
  );
  return (await Promise.all(all)).flat();
}
