/** Not a test: module state that preload.test.ts must refuse, and forms it must let pass. */
export let counter = 0;
export const cache = new Map<string, number>();
export const LIMITS = { max: 3 } as const;
export const BY_NAME: ReadonlyMap<string, number> = new Map([['a', 1]]);
export function fresh(): Set<string> {
  counter++;
  return new Set(cache.keys());
}
