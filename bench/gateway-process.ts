/**
 * The gateway as the bench runs it: `startGateway` with a fully defaulted config plus the JSON
 * overrides in argv[2] (port 0, silent logs and the fast agent as upstream are set by the harness).
 * Same code path as `a2a-bridge serve`; a wrapper only so the harness can pass any config key and ask
 * for a garbage collection over IPC (when started with --expose-gc) before reading resident memory.
 *
 * Prints `READY <url>` on stdout. SIGTERM closes the gateway and exits normally, which is what lets
 * `--cpu-prof` write its profile.
 */
import { startGateway } from '../src/app.js';
import { defaultConfig } from '../src/config/schema.js';
import { createLogger } from '../src/log.js';

const overrides = JSON.parse(process.argv[2] ?? '{}') as Record<string, unknown>;
const config = defaultConfig({ port: 0, 'log-level': 'silent', ...overrides });
const gateway = await startGateway(config, createLogger(config['log-level']));
process.stdout.write(`READY ${gateway.url}\n`);

const collect = (globalThis as { gc?: () => void }).gc;
process.on('message', (message) => {
  if (message !== 'gc') return;
  collect?.();
  process.send?.({ collected: collect !== undefined, memory: process.memoryUsage() });
});

let stopping = false;
const stop = () => {
  if (stopping) process.exit(1);
  stopping = true;
  // Idle SSE streams never finish on their own: bound the drain so the profile still gets written.
  const deadline = setTimeout(() => process.exit(0), 2_000);
  void gateway.close().finally(() => {
    clearTimeout(deadline);
    process.exit(0);
  });
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
process.on('disconnect', stop);
