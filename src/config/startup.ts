/**
 * What the worker (src/workers/main.ts) and the standalone callback receiver
 * (src/callbacks/main.ts) share at start-up: the environment handed to Temporal's connection
 * config, and how a start-up failure is printed.
 */
import type { Env } from './env';

/**
 * The set variables only, as Temporal's `loadClientConnectConfig` takes them (`overrideEnvVars`).
 * An empty TEMPORAL_* counts as unset: docker-compose.yml passes every connection setting as
 * `${TEMPORAL_API_KEY:-}` (docs/deploy.md, "Docker"), and the SDK would read an empty API key
 * as "use TLS with this key".
 */
export function definedEnv(env: Env): Record<string, string> {
  const set = (e: [string, string | undefined]): e is [string, string] =>
    e[1] !== undefined && !(e[1] === '' && e[0].startsWith('TEMPORAL_'));
  return Object.fromEntries(Object.entries(env).filter(set));
}

/** An error class whose message is complete and secret-free. */
export type PlainErrorClass = abstract new (...args: never[]) => Error;

/**
 * Configuration and connection errors (the `plain` classes) are printed as their own message,
 * which names the variable or address and never a secret; any other error keeps its stack.
 */
export function describeStartupError(err: unknown, plain: readonly PlainErrorClass[]): string {
  if (plain.some((type) => err instanceof type)) return (err as Error).message;
  return err instanceof Error ? (err.stack ?? err.message) : String(err);
}
