/**
 * Is a host or an address public? The one home of that judgement, for the definition
 * validator (offline, and again in the workflow sandbox: so pure code, no DNS) and for the
 * archive download (which also judges every address a name resolves to). ipaddr.js parses
 * every form an http client accepts for an IP (127.1, 0x7f.0.0.1, 2130706433,
 * [::ffff:7f00:1]) and names its range.
 */
import ipaddr from 'ipaddr.js';

/** ipaddr.js range names in our words; any other range but plain unicast is special-purpose. */
const RANGES: Readonly<Record<string, string>> = {
  loopback: 'loopback',
  unspecified: 'unspecified',
  linkLocal: 'link-local',
  private: 'private',
  uniqueLocal: 'private',
  deprecatedSiteLocal: 'private',
  carrierGradeNat: 'shared (carrier-grade NAT)',
  broadcast: 'multicast or reserved',
  multicast: 'multicast or reserved',
  reserved: 'multicast or reserved',
};

/** `localhost` names are loopback by definition (RFC 6761): no DNS needed to judge them. */
const LOCALHOST_NAME = /(^|\.)localhost$/;

/** Special-use names (RFC 6761, 6762, 8375 and ICANN's .internal) never resolve publicly. */
const LOCAL_NAME = /(^|\.)(localhost|local|internal|home\.arpa)$/;

/** A host as compared: lower case, without a trailing dot. */
function bare(host: string): string {
  return host.toLowerCase().replace(/\.$/, '');
}

/** An http client reads a host whose last label is a number as an IPv4 address. */
function looksNumeric(host: string): boolean {
  const last = host.slice(host.lastIndexOf('.') + 1);
  return /^(\d+|0x[0-9a-f]*)$/.test(last);
}

/** The IP address a host stands for, when it is written as one ('[::1]', '::1', '127.1'). */
function ipLiteral(host: string): string | undefined {
  const h = bare(host);
  if (h.startsWith('[')) return h.slice(1, -1);
  return h.includes(':') || looksNumeric(h) ? h : undefined;
}

/** An IPv4-compatible IPv6 address (::/96, deprecated by RFC 4291): never a public peer. */
function isIpv4Compatible(address: ipaddr.IPv4 | ipaddr.IPv6): boolean {
  return address.kind() === 'ipv6' && (address as ipaddr.IPv6).parts.slice(0, 6).every((p) => p === 0);
}

/**
 * The non-public range a valid IP address lies in ('loopback', 'private', ...), or
 * undefined when it is public. An IPv4-mapped IPv6 address counts as the IPv4 address it
 * carries.
 */
function addressRange(ip: string): string | undefined {
  const address = ipaddr.process(ip);
  const range = address.range();
  if (range !== 'unicast') return RANGES[range] ?? `special-purpose (${range})`;
  return isIpv4Compatible(address) ? 'multicast or reserved' : undefined;
}

/** A range in words, for messages: 'a loopback address', 'an unspecified address'. */
export function rangeInWords(range: string): string {
  return `${/^[aeiou]/.test(range) ? 'an' : 'a'} ${range} address`;
}

/**
 * The non-public range of a host judged as written, without DNS: an IP literal in any form
 * (with or without brackets), or 'loopback' for `localhost` names. Undefined when public,
 * for any other name (only DNS can judge it), and for an invalid IP (see invalidIpReason).
 */
export function literalHostRange(host: string): string | undefined {
  const literal = ipLiteral(host);
  if (literal !== undefined) return ipaddr.isValid(literal) ? addressRange(literal) : undefined;
  return LOCALHOST_NAME.test(bare(host)) ? 'loopback' : undefined;
}

/** Why a host written as an IP address is not a valid one (an http client would refuse it), or undefined. */
export function invalidIpReason(host: string): string | undefined {
  const literal = ipLiteral(host);
  return literal !== undefined && !ipaddr.isValid(literal) ? `host ${host} is not a valid IP address` : undefined;
}

/**
 * Why `host` (as written in a URL: a name, an IPv4 form, or [IPv6]) is not a public host,
 * or undefined when it is. Stricter than literalHostRange on names: the vendor could not
 * resolve a local or single-label name either.
 */
export function nonPublicHostReason(host: string): string | undefined {
  const invalid = invalidIpReason(host);
  if (invalid) return invalid;
  const literal = ipLiteral(host);
  if (literal !== undefined) {
    const range = addressRange(literal);
    return range && `host ${host} is ${rangeInWords(range)}, not a public one`;
  }
  const name = bare(host);
  if (LOCAL_NAME.test(name)) return `host ${host} is a local name, not a public one`;
  if (!name.includes('.')) return `host ${host} is a single-label name, not a public one`;
  return undefined;
}
