/**
 * Which private webhook targets the worker may reach: REELFLOW_NOTIFY_ALLOW_PRIVATE. Only the
 * worker's operator decides this, never a definition's author (webhooks are sent by the worker,
 * from inside its network). `1`/`true` allows every private address (kept for compatibility:
 * local testing against the emulator); `0`/`false`/unset none; otherwise a comma list of host
 * names (that name may resolve to private addresses), IP addresses and CIDR subnets.
 * No I/O here: the delivery activity also judges what a name resolves to.
 */
import { BlockList, isIP } from 'node:net';
import { nonPublicHostReason } from '../definition/hosts';

export interface WebhookAllowance {
  /** Every private address (`1`/`true`). */
  all: boolean;
  /** Host names, lower case, without brackets. */
  hosts: string[];
  /** IP addresses and CIDR subnets (an address alone is its /32 or /128). */
  cidrs: string[];
}

export const NO_PRIVATE: WebhookAllowance = { all: false, hosts: [], cidrs: [] };

/** A list of addresses and CIDR subnets (the opt-in's allow-list). */
export function blockListOf(cidrs: readonly string[]): BlockList {
  const list = new BlockList();
  for (const cidr of cidrs) {
    const [net = '', bits] = cidr.split('/');
    const family = isIP(net) === 6 ? 'ipv6' : 'ipv4';
    list.addSubnet(net, bits === undefined ? (family === 'ipv6' ? 128 : 32) : Number(bits), family);
  }
  return list;
}

const HOST_NAME = /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/;

function cidrProblem(entry: string): string | undefined {
  const [net = '', bits, extra] = entry.split('/');
  const family = isIP(net);
  if (family === 0 || extra !== undefined) return `"${entry}" is neither a host name, an IP address nor a CIDR subnet`;
  if (bits === undefined) return undefined;
  const max = family === 6 ? 128 : 32;
  return /^\d{1,3}$/.test(bits) && Number(bits) <= max ? undefined : `"${entry}": prefix length must be 0..${max}`;
}

/** Parses the variable's value; throws an Error saying which entry is wrong (never other values). */
export function parseWebhookAllowance(value: string | undefined): WebhookAllowance {
  const v = (value ?? '').trim().toLowerCase();
  if (v === '' || v === '0' || v === 'false') return NO_PRIVATE;
  if (v === '1' || v === 'true') return { all: true, hosts: [], cidrs: [] };
  const out: WebhookAllowance = { all: false, hosts: [], cidrs: [] };
  for (const raw of v.split(',')) {
    const entry = raw.trim().replace(/^\[|\]$/g, '');
    if (!entry) continue;
    if (isIP(entry.split('/')[0] ?? '') !== 0) {
      const problem = cidrProblem(entry);
      if (problem) throw new Error(problem);
      out.cidrs.push(entry);
    } else if (HOST_NAME.test(entry)) out.hosts.push(entry);
    else throw new Error(`"${entry}" is neither a host name, an IP address nor a CIDR subnet`);
  }
  return out;
}

/** Whether the allowance names this host (a URL's hostname) itself: its name, or an IP in a listed subnet. */
export function allowanceCovers(a: WebhookAllowance, host: string): boolean {
  if (a.all) return true;
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (a.hosts.includes(bare)) return true;
  const family = isIP(bare);
  return family !== 0 && a.cidrs.length > 0 && blockListOf(a.cidrs).check(bare, family === 6 ? 'ipv6' : 'ipv4');
}

/**
 * Why a webhook host, judged as written, may not be used by this worker, or undefined.
 * A private literal (or a local name) must be covered by the allowance.
 */
export function webhookHostRefusal(a: WebhookAllowance, host: string): string | undefined {
  if (allowanceCovers(a, host)) return undefined;
  const reason = nonPublicHostReason(host);
  return reason && `${reason} (the worker's REELFLOW_NOTIFY_ALLOW_PRIVATE does not list it)`;
}

/** One line for logs. */
export function describeAllowance(a: WebhookAllowance): string {
  if (a.all) return 'all private addresses';
  return [...a.hosts, ...a.cidrs].join(',') || 'none';
}
