/**
 * Every vendor request the emulator saw, newest last, bounded. Entries are built from
 * Reply metadata and the path only — headers are never copied, so keys and tokens
 * cannot end up here; URL signatures are masked.
 */
import { redactSignature } from './urls';

export interface RequestRecord {
  seq: number;
  /** Emulator time the request arrived (ISO). */
  at: string;
  method: string;
  /** Path and query, signatures masked. */
  path: string;
  /** Endpoint key (the fault-config key), when the path is a vendor endpoint. */
  endpoint?: string;
  action?: string;
  /** HTTP status sent, or "reset" when the socket was destroyed instead. */
  status: number | 'reset';
  principal?: string;
  traceId?: string;
  trackId?: string;
  callbackUrl?: string;
  resourceId?: string;
  /** Faults injected into this request, in order. */
  faults: string[];
  durationMs: number;
}

export class RequestLog {
  private entries: RequestRecord[] = [];
  private seq = 0;

  constructor(private readonly size: number) {}

  add(entry: Omit<RequestRecord, 'seq' | 'path'> & { path: string }): void {
    this.seq += 1;
    this.entries.push({ ...entry, seq: this.seq, path: redactSignature(entry.path) });
    if (this.entries.length > this.size) this.entries.splice(0, this.entries.length - this.size);
  }

  /** Copies of the entries, optionally only those after `sinceSeq`. */
  list(sinceSeq = 0): RequestRecord[] {
    return this.entries.filter((e) => e.seq > sinceSeq).map((e) => ({ ...e, faults: [...e.faults] }));
  }

  clear(): void {
    this.entries = [];
    this.seq = 0;
  }
}
