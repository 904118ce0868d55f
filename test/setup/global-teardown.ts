import type { DevServer } from '../../tools/devstack/dev-server';

export default async function globalTeardown(): Promise<void> {
  const server = (globalThis as { __reelflowDevServer?: DevServer }).__reelflowDevServer;
  await server?.stop();
}
