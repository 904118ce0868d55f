/**
 * Web UI summaries of a pipeline's activities and timers, one line each, prefixed by the
 * stage: "generation · poll cgt-…", "generation · wait 5 s before next poll of cgt-…".
 * Ids and names only: never a URL (signed URLs carry credentials) nor a secret.
 */
import { printable } from '../../../contract/printable';

/** "<stage> · <what>". */
export function summaryOf(stage: string, text: string): string {
  return `${stage} · ${printable(text, 200)}`;
}

/** A short duration: "800 ms", "1.5 s", "2 min 5 s". */
export function duration(ms: number): string {
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${+(ms / 1_000).toFixed(1)} s`;
  const s = Math.round((ms % 60_000) / 1_000);
  return `${Math.floor(ms / 60_000)} min${s ? ` ${s} s` : ''}`;
}
