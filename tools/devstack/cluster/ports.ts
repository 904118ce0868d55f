/**
 * The server's ports, all free ones on loopback except a frontend port the caller fixes.
 * They are drawn below 32768: the server records each service's membership port in the
 * cluster_membership table as a SMALLINT, and an ephemeral port (32768 and up, what
 * listening on port 0 gives) fails there with "value … is out of range for type smallint".
 */
import net from 'node:net';
import type { ServerPorts } from './config';

const LOW = 20_000;
const HIGH = 32_767;

function tryListen(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.unref();
    srv.once('error', () => resolve(false));
    srv.listen(port, host, () => srv.close(() => resolve(true)));
  });
}

async function lowFreePort(host: string, taken: Set<number>): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = LOW + Math.floor(Math.random() * (HIGH - LOW + 1));
    if (!taken.has(port) && (await tryListen(host, port))) {
      taken.add(port);
      return port;
    }
  }
  throw new Error(`no free port in ${LOW}..${HIGH} on ${host}`);
}

export async function choosePorts(ip: string, frontend?: number): Promise<ServerPorts> {
  const taken = new Set<number>(frontend ? [frontend] : []);
  const free = () => lowFreePort(ip, taken);
  return {
    frontend: frontend || (await free()),
    frontendHttp: await free(),
    history: await free(),
    matching: await free(),
    worker: await free(),
    membership: { frontend: await free(), history: await free(), matching: await free(), worker: await free() },
    metrics: await free(),
  };
}
