import type { DevServer } from '../../tools/devstack/dev-server';
import type { ObjectStoreServer } from '../../tools/devstack/object-store';

export default async function globalTeardown(): Promise<void> {
  const server = (globalThis as { __reelflowDevServer?: DevServer }).__reelflowDevServer;
  await server?.stop();
  await (globalThis as { __reelflowObjectStore?: ObjectStoreServer }).__reelflowObjectStore?.stop();
}
