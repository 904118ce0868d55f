/**
 * Polling: tests wait on behaviour, not on time (docs/testing.md). One helper for every
 * wait on something that happens elsewhere: a webhook, a visibility update, a callback.
 */

export interface PollOptions {
  /** Give up after this long (default 60 s: a Temporal round trip on a busy machine). */
  timeoutMs?: number;
  /** Time between two probes (default 200 ms). */
  everyMs?: number;
}

/** For things that happen in this process within moments (an emulator's callback on loopback). */
export const SOON: PollOptions = { timeoutMs: 3_000, everyMs: 10 };

type Seen<T> = T | undefined | null | false;

/**
 * Calls `probe` until it gives a value other than undefined, null or false (a predicate's
 * true, or the thing waited for) and returns that value. On timeout it throws, naming
 * `what` (a function when the message should show the last thing seen).
 */
export async function until<T>(
  what: string | (() => string),
  probe: () => Seen<T> | Promise<Seen<T>>,
  { timeoutMs = 60_000, everyMs = 200 }: PollOptions = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== null && value !== false) return value;
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${typeof what === 'string' ? what : what()}`);
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
