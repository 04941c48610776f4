/**
 * The gateway as the bench runs it: the BUILT gateway (`dist/`, as `a2a-bridge serve` runs it, no
 * TypeScript loader in the process), `startGateway` with a fully defaulted config plus the JSON
 * overrides in argv[2] (port 0, silent logs and the fast agent as upstream are set by the harness).
 * Plain JavaScript so that nothing but node and the build is in the process; a wrapper only so the
 * harness can pass any config key, ask for a garbage collection over IPC (when started with
 * --expose-gc) before reading resident memory, and read the diagnostics of diag-hooks.mjs.
 *
 * Prints `READY <url>` on stdout. SIGTERM closes the gateway and exits normally, which is what lets
 * `--cpu-prof` write its profile.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { installDiagnostics } from './diag-hooks.mjs';
import { answerMemoryProbes } from './memory-probes.mjs';

// BENCH_DIST names another build (bench/ab.ts compares two); by default the repo's own dist/.
const dist = process.env.BENCH_DIST ? pathToFileURL(`${process.env.BENCH_DIST}/`) : new URL('../dist/', import.meta.url);
const { startGateway } = await import(new URL('app.js', dist).href);
const { defaultConfig } = await import(new URL('config/schema.js', dist).href);
const { createLogger } = await import(new URL('log.js', dist).href);

const overrides = JSON.parse(process.argv[2] ?? '{}');
// The bench runs several gateways at once (two builds side by side, the idle-stream gateway beside the main one), and a
// gateway holds its persistence-dir against a second one: each gets a folder of its own, gone when it exits.
const ownDir = overrides['persistence-dir'] === undefined ? mkdtempSync(join(tmpdir(), 'a2a-bridge-bench-')) : undefined;
if (ownDir) process.on('exit', () => rmSync(ownDir, { recursive: true, force: true }));
const config = defaultConfig({ port: 0, 'log-level': 'silent', 'persistence-dir': ownDir, ...overrides });
const gateway = await startGateway(config, createLogger(config['log-level']));
installDiagnostics();
process.stdout.write(`READY ${gateway.url}\n`);

answerMemoryProbes();

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
