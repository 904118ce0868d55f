/**
 * Which addresses an archive download (or a webhook) may reach: only public ones, unless the worker opts
 * in for local testing. Judged on the literal host first (no DNS), then on every address a
 * name resolves to, right before the socket connects to it (so DNS rebinding between a check
 * and the connect cannot slip through), and once more on the socket's peer address.
 */
import { isIP, type LookupFunction } from 'node:net';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { Agent, buildConnector, interceptors, type Dispatcher } from 'undici';
import { literalHostRange, rangeInWords } from '../definition/hosts';
import { blockListOf } from '../webhooks/allowance';

function family(address: string): 'ipv4' | 'ipv6' {
  return isIP(address) === 6 ? 'ipv6' : 'ipv4';
}

/**
 * Why `host` (a URL's hostname, an IP with or without brackets) is not public, or undefined
 * when it is public or a name that only DNS can judge. The ranges are the definition
 * validator's (../definition/hosts.ts). No I/O.
 */
export function nonPublicReason(host: string): string | undefined {
  return literalHostRange(host);
}

/**
 * Which non-public addresses are allowed anyway: `true` any (local testing against the
 * emulator), a list of addresses or CIDR subnets only these; false or empty none.
 */
export type PrivateAllowance = boolean | readonly string[];

export class AddressRefusedError extends Error {
  override readonly name = 'AddressRefusedError';
  readonly code = 'ERR_ARCHIVE_ADDRESS_REFUSED';
  constructor(
    readonly host: string,
    readonly reason: string,
    readonly address?: string,
  ) {
    super(
      `refused to connect to ${host}${address && address !== host ? ` (resolves to ${address})` : ''}: ${rangeInWords(reason)}, not public`,
    );
  }
}

/** The first AddressRefusedError in an error's cause chain. */
export function addressRefusalIn(err: unknown): AddressRefusedError | undefined {
  for (let e = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e instanceof AddressRefusedError) return e;
  }
  return undefined;
}

export interface AddressGuard {
  /** The refusal for a literal host (before any DNS or socket), or undefined. */
  refusalOf(host: string): AddressRefusedError | undefined;
  /** An undici dispatcher that follows up to 5 redirects and connects only where allowed. */
  dispatcher(): Dispatcher;
}

export function createAddressGuard(opts: {
  allowPrivate?: PrivateAllowance;
  /** DNS seam (tests map a name to 127.0.0.1); default node:dns lookup. */
  lookup?: LookupFunction;
  connectTimeoutMs?: number;
  /** Redirects followed (default 5); 0 answers a 3xx as it is (webhooks: a POST is not re-sent elsewhere). */
  maxRedirections?: number;
}): AddressGuard {
  const allowAll = opts.allowPrivate === true;
  const allowed = Array.isArray(opts.allowPrivate) ? blockListOf(opts.allowPrivate) : undefined;
  const refusalOf = (host: string, address = host): AddressRefusedError | undefined => {
    if (allowAll) return undefined;
    const reason = nonPublicReason(address);
    if (reason === undefined) return undefined;
    const bare = address.replace(/^\[|\]$/g, '');
    if (allowed && isIP(bare) && allowed.check(bare, family(bare))) return undefined;
    return new AddressRefusedError(host, reason, address === host ? undefined : address);
  };

  const lookup = opts.lookup ?? dnsLookup;
  /** Resolves like dns.lookup, but fails when ANY address of the name is refused. */
  const guardedLookup: LookupFunction = (hostname, options, callback) => {
    lookup(hostname, { ...options, all: true }, (err, resolved) => {
      if (err) return callback(err, '', 0);
      const addresses = resolved as unknown as LookupAddress[];
      const refused = addresses.map((a) => refusalOf(hostname, a.address)).find(Boolean);
      if (refused) return callback(refused, '', 0);
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      const [first] = addresses;
      if (!first) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), '', 0);
      callback(null, first.address, first.family);
    });
  };

  const maxRedirections = opts.maxRedirections ?? 5;
  const withRedirects = (base: Agent): Dispatcher =>
    maxRedirections > 0 ? base.compose(interceptors.redirect({ maxRedirections })) : base;
  let agent: Dispatcher | undefined;
  const dispatcher = (): Dispatcher => {
    if (agent) return agent;
    if (allowAll) return (agent = withRedirects(new Agent(opts.lookup ? { connect: { lookup: opts.lookup } } : {})));
    const base = buildConnector({ lookup: guardedLookup, timeout: opts.connectTimeoutMs ?? 10_000 });
    const connect: buildConnector.connector = (options, callback) => {
      const literal = refusalOf(options.hostname);
      if (literal) return callback(literal, null);
      base(options, (err, socket) => {
        // Belt and braces: the peer we actually reached.
        const peer = socket?.remoteAddress;
        const late = peer ? refusalOf(options.hostname, peer) : undefined;
        if (err || !late) return err ? callback(err, null) : callback(null, socket);
        socket.destroy();
        callback(late, null);
      });
    };
    return (agent = withRedirects(new Agent({ connect })));
  };

  return { refusalOf: (host) => refusalOf(host), dispatcher };
}
