/**
 * Who may use the /__emulator/ control and inspection API. It can reset the emulator,
 * inject faults and read every request, so: with a configured token, every call must
 * carry `Authorization: Bearer <token>`; without one, it answers only when the emulator
 * binds to loopback (and the caller is on loopback). `health` is always open.
 */
import { timingSafeEqual } from 'node:crypto';
import { simpleError } from './errors';
import { header, type EmuRequest, type Reply } from './http';

export const CONTROL_TOKEN_ENV = 'EMULATOR_CONTROL_TOKEN';
const MIN_TOKEN_LENGTH = 16;

/** Validates a configured token; the error names the option, never the value. */
export function checkControlToken(token: string): string {
  if (token.length < MIN_TOKEN_LENGTH || /\s/.test(token)) {
    throw new Error(
      `controlToken (env ${CONTROL_TOKEN_ENV}) must be at least ${MIN_TOKEN_LENGTH} characters, without whitespace`,
    );
  }
  return token;
}

/** 127.0.0.0/8, ::1 (also IPv4-mapped) and localhost. */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (!address) return false;
  const a = address
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/^::ffff:/, '');
  return a === 'localhost' || a === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(a);
}

export interface ControlAccess {
  /** The address the emulator binds to. */
  host: string;
  token?: string;
}

function sameToken(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** undefined when the call may proceed; else the refusal to answer. */
export function checkControlAccess(
  access: ControlAccess,
  req: EmuRequest,
  remoteAddress: string | undefined,
): Reply | undefined {
  if (req.method === 'GET' && req.path === '/__emulator/health') return undefined;
  if (access.token !== undefined) {
    const given = /^Bearer\s+(\S+)\s*$/i.exec(header(req, 'authorization') ?? '')?.[1];
    if (given !== undefined && sameToken(given, access.token)) return undefined;
    return simpleError(401, `the control API needs Authorization: Bearer <control token> (${CONTROL_TOKEN_ENV})`);
  }
  if (!isLoopbackAddress(access.host)) {
    return simpleError(
      403,
      `the control API is disabled: the emulator binds to ${access.host}, not loopback, and no control token ` +
        `is configured (option controlToken, env ${CONTROL_TOKEN_ENV})`,
    );
  }
  if (!isLoopbackAddress(remoteAddress)) return simpleError(403, 'the control API answers loopback callers only');
  return undefined;
}
