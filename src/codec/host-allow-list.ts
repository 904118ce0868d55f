/**
 * The Host headers the codec server answers (docs/encryption.md, "Codec server: decrypting in the
 * Web UI and the CLI"): its defence against DNS rebinding, where a web page re-points its own name
 * at 127.0.0.1 and the browser then sends that name, not ours, as the Host.
 */
import { literalHostRange } from '../definition/hosts';

/** Every interface: no single name is "the bound host", so the names must be configured. */
const UNSPECIFIED = new Set(['0.0.0.0', '::', '[::]', '']);
const ENTRY = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(:\d{1,5})?$/;

/** A bare IPv6 address (two or more colons) gets its brackets; `name:port` is a name with a port. */
const bracketed = (host: string) => (host.split(':').length > 2 && !host.startsWith('[') ? `[${host}]` : host);

/** `host` or `host:port` as a Host header carries it (lower case; the bound port when none). */
function normalise(entry: string, port: number): string {
  const e = bracketed(entry.trim().toLowerCase());
  const m = ENTRY.exec(e);
  if (!m) throw new TypeError(`allowedHosts: "${entry}" is not a host or host:port (no scheme, no path)`);
  return m[2] ? e : `${e}:${port}`;
}

/**
 * The Host header values answered, once the port is known. The bound host and port by
 * default, with `127.0.0.1`, `localhost` and `[::1]` when it is loopback or every interface;
 * plus `allowedHosts`.
 * Throws when binding every interface without `allowedHosts`.
 */
export function hostAllowList(bound: string, port: number, allowedHosts: readonly string[] = []): Set<string> {
  const out = new Set(allowedHosts.map((h) => normalise(h, port)));
  const everywhere = UNSPECIFIED.has(bound.trim());
  if (everywhere && out.size === 0) {
    throw new TypeError(
      `allowedHosts is required when the codec server binds every interface (${bound || 'unspecified'}): list the host names its clients use`,
    );
  }
  if (!everywhere) out.add(normalise(bound, port));
  // Every interface includes loopback (and the URL the server prints is 127.0.0.1).
  if (everywhere || literalHostRange(bound) === 'loopback') {
    for (const h of ['127.0.0.1', 'localhost', '[::1]']) out.add(`${h}:${port}`);
  }
  // A browser leaves out the default port.
  if (port === 80) for (const h of [...out]) out.add(h.replace(/:80$/, ''));
  return out;
}
