/**
 * The vendor emulator: a local HTTP server speaking the whole vendor contract
 * (docs/vendor-contract.md) on one port — base_url and identity_url alike — with seeded
 * fault injection and an inspection API under /__emulator/. See README-emulator.md.
 */
import { Emulator } from './emulator';
import type { FaultConfig } from './faults';
import type { InspectionSnapshot } from './inspection';
import { resolveOptions, type EmulatorOptions } from './options';

export type { EmulatorOptions } from './options';
export type { Timings, Profile, Duration } from './timings';
export type {
  FaultConfig,
  EndpointFaults,
  FaultRule,
  FaultKind,
  EndpointKey,
  CallbackKey,
  CreateKey,
  TaskFaultKind,
} from './faults';
export {
  FaultConfigSchema,
  parseFaultConfig,
  REQUEST_ENDPOINT_KEYS,
  CALLBACK_KEYS,
  CREATE_KEYS,
  TASK_FAULT_KINDS,
} from './faults';
export { DIALECTS, type Dialect } from './dialect';
export { CONTROL_TOKEN_ENV } from './control-access';
export type { InspectionSnapshot } from './inspection';
export type { RequestRecord } from './request-log';
export type { CallbackDelivery } from './callbacks';
export type { Limits } from './context';
export { DEFAULT_API_KEYS, DEFAULT_ACCESS_TOKENS } from './options';
export type { ExtraRoute, EmuRequest, Reply } from './extra-routes';

export interface RunningEmulator {
  /** http://host:port — use it as both base_url and identity_url. */
  url: string;
  port: number;
  close(): Promise<void>;
  /** Everything created, every request seen (redacted), counters, faults. */
  inspect(): InspectionSnapshot;
  /** Replaces the fault config (validated; throws on an invalid one). */
  setFaults(faults: FaultConfig): void;
  /** Moves emulator time forward; due state changes and callbacks happen at once. */
  advanceClock(ms: number): void;
  /** Back to just-started: no resources, logs or counters; the initial faults; real time. */
  reset(): void;
}

export async function startEmulator(opts: EmulatorOptions = {}): Promise<RunningEmulator> {
  const emulator = new Emulator(resolveOptions(opts));
  const { url, port } = await emulator.listen();
  return {
    url,
    port,
    close: () => emulator.close(),
    inspect: () => emulator.snapshot(),
    setFaults: (faults) => emulator.setFaults(faults),
    advanceClock: (ms) => emulator.advanceClock(ms),
    reset: () => emulator.reset(),
  };
}
