/**
 * `npm run dev-stack`: the Temporal dev server (SQLite under .data/, Web UI) and the vendor
 * emulator, on fixed ports so other commands can find them; prints where each listens and
 * stops cleanly on Ctrl-C. Run `npm run worker` beside it (with the printed environment).
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_ACCESS_TOKENS, DEFAULT_API_KEYS, startEmulator } from '../../src/emulator';
import { startLocalTemporal } from './local-temporal';
import { repoRoot } from './temporal-cli';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: process.env.REELFLOW_DEV_TEMPORAL_PORT ?? '7233' },
      'ui-port': { type: 'string', default: process.env.REELFLOW_DEV_UI_PORT ?? '8233' },
      'emulator-port': { type: 'string', default: process.env.REELFLOW_DEV_EMULATOR_PORT ?? '8080' },
      'no-emulator': { type: 'boolean', default: false },
    },
  });
  const port = (name: string, v: string | undefined) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < 0 || n > 65535)
      throw new Error(`--${name} must be a port number 0..65535, got ${v}`);
    return n;
  };
  const dataDir = path.join(repoRoot(), '.data');
  const log = (line: string) => console.error(line);
  const server = await startLocalTemporal({
    dbFile: path.join(dataDir, 'temporal.db'),
    logFile: path.join(dataDir, 'temporal.log'),
    port: port('port', values.port),
    uiPort: port('ui-port', values['ui-port']),
    log,
  });
  console.log(`temporal  ${server.address}   Web UI ${server.uiUrl ?? '(off)'}   data .data/temporal.db`);
  const emulator = values['no-emulator']
    ? undefined
    : await startEmulator({ port: port('emulator-port', values['emulator-port']) });
  if (emulator) {
    const [apiKey] = DEFAULT_API_KEYS;
    const [user1] = DEFAULT_ACCESS_TOKENS;
    console.log(`emulator  ${emulator.url}   API key ${apiKey}, access tokens ${DEFAULT_ACCESS_TOKENS.join(', ')}`);
    console.log('\nworker environment:');
    console.log(
      `  TEMPORAL_ADDRESS=${server.address} VENDOR_BASE_URL=${emulator.url} VENDOR_IDENTITY_URL=${emulator.url} \\`,
    );
    console.log(`  REELFLOW_PROFILE_DEFAULT_API_KEY=${apiKey} REELFLOW_PROFILE_DEFAULT_ACCESS_TOKEN=${user1} \\`);
    console.log('  REELFLOW_ARCHIVE_ALLOW_PRIVATE=1 npm run worker   # archive from the local emulator');
  }
  console.log('\nCtrl-C stops everything.');
  // A repeated signal while stopping changes nothing: exiting early would orphan the dev server
  // (its stop is bounded: SIGINT, then SIGKILL after 15 s).
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await emulator?.close();
    await server.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
}

main().catch((err) => {
  console.error(`dev-stack: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
