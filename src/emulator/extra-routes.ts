/**
 * Routes of your own on the emulator (EmulatorOptions.routes): an interface the vendor does not
 * have yet, for a test of a stage of your own (docs/architecture.md, "How to add a stage").
 * They are tried after every vendor route, so they never shadow one, and before the gateway's
 * 404. What they answer is theirs: no credential check, no fault injection, no counters; the
 * request log records them like any request.
 */
import type { EmuRequest, Reply } from './http';

export type { EmuRequest, Reply } from './http';

export interface ExtraRoute {
  /**
   * The reply to a request this route serves, or undefined to pass it on. `baseUrl` is the
   * emulator's origin (for the URLs it issues); `nowMs` its clock (advanceClock moves it).
   */
  handle(req: EmuRequest, at: { baseUrl: string; nowMs: number }): Reply | undefined;
}

/** The first extra route's reply to `req`, if one serves it. */
export function extraReply(
  routes: readonly ExtraRoute[],
  req: EmuRequest,
  baseUrl: string,
  nowMs: number,
): Reply | undefined {
  for (const r of routes) {
    const reply = r.handle(req, { baseUrl, nowMs });
    if (reply) return reply;
  }
  return undefined;
}
