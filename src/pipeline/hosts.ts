/**
 * Is a URL's host public? Judged on the literal host only (no DNS: `validate` runs
 * offline, and the workflow re-checks in its sandbox), so this is pure code: ipaddr.js
 * parses every form an http client accepts for an IP (127.1, 0x7f.0.0.1, 2130706433,
 * [::ffff:7f00:1]) and names its range.
 */
import ipaddr from 'ipaddr.js';

/** Ranges in words, for messages; any range but plain unicast is not public. */
const RANGE_WORDS: Readonly<Record<string, string>> = {
  loopback: 'a loopback address',
  private: 'a private-network address',
  uniqueLocal: 'a private-network (unique local) address',
  linkLocal: 'a link-local address',
  unspecified: 'the unspecified address',
  carrierGradeNat: 'a carrier-grade NAT address',
  broadcast: 'a broadcast address',
  multicast: 'a multicast address',
};

/** Special-use names (RFC 6761, 6762, 8375 and ICANN's .internal) never resolve publicly. */
const LOCAL_NAME = /(^|\.)(localhost|local|internal|home\.arpa)$/;

/** An http client reads a host whose last label is a number as an IPv4 address. */
function looksNumeric(host: string): boolean {
  const last = host.slice(host.lastIndexOf('.') + 1);
  return /^(\d+|0x[0-9a-f]*)$/.test(last);
}

/** The IP address a host stands for, when it is written as one ('[::1]', '127.1'). */
function ipLiteral(host: string): string | undefined {
  const h = host.toLowerCase().replace(/\.$/, '');
  if (h.startsWith('[')) return h.slice(1, -1);
  return looksNumeric(h) ? h : undefined;
}

/** Why a host written as an IP address is not a valid one (an http client would refuse it), or undefined. */
export function invalidIpReason(host: string): string | undefined {
  const literal = ipLiteral(host);
  return literal !== undefined && !ipaddr.isValid(literal) ? `host ${host} is not a valid IP address` : undefined;
}

/**
 * Why `host` (as written in a URL: a name, an IPv4 form, or [IPv6]) is not a public host,
 * or undefined when it is.
 */
export function nonPublicHostReason(host: string): string | undefined {
  const invalid = invalidIpReason(host);
  if (invalid) return invalid;
  const literal = ipLiteral(host);
  if (literal !== undefined) {
    // process() reads an IPv4-mapped IPv6 address as the IPv4 address it carries.
    const range = ipaddr.process(literal).range();
    if (range === 'unicast') return undefined;
    return `host ${host} is ${RANGE_WORDS[range] ?? `a special-purpose address (${range})`}, not a public one`;
  }
  const name = host.toLowerCase().replace(/\.$/, '');
  if (LOCAL_NAME.test(name)) return `host ${host} is a local name, not a public one`;
  if (!name.includes('.')) return `host ${host} is a single-label name, not a public one`;
  return undefined;
}
