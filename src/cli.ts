#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import type { Logger } from 'pino';
import { ConfigError, loadConfig, usage } from './config/load.js';
import type { GatewayConfig } from './config/schema.js';
import { createLogger } from './log.js';

/** Exit codes: 0 done, 1 runtime failure, 2 the operator's configuration or command line is wrong. */
const EXIT_FAILURE = 1;
const EXIT_USAGE = 2;

function packageVersion(): string {
  // src/cli.ts and dist/cli.js both sit one level below package.json.
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

/** First SIGTERM/SIGINT drains (bounded by drain-timeout-ms plus a margin); a second one exits at once. */
function exitOnSignals(close: () => Promise<void>, logger: Logger, drainMs: number): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: exiting without draining');
      process.exit(EXIT_FAILURE);
    }
    stopping = true;
    logger.info({ signal }, 'shutting down: draining open requests');
    setTimeout(() => {
      logger.error({ drainMs }, 'shutdown did not finish in time');
      process.exit(EXIT_FAILURE);
    }, drainMs + 5_000).unref();
    close().then(
      () => {
        logger.info('stopped');
        process.exit(0);
      },
      (err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(EXIT_FAILURE);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}

async function serve(config: GatewayConfig, warnings: string[]): Promise<void> {
  const logger = createLogger(config['log-level']);
  for (const warning of warnings) logger.warn(warning);
  try {
    // Loaded here, not at the top: help, version and config errors must not pay for (or depend on) the server.
    const { startGateway } = await import('./app.js');
    const gateway = await startGateway(config, logger);
    exitOnSignals(() => gateway.close(), logger, config['drain-timeout-ms']);
    logger.info({ url: gateway.url }, 'a2a-bridge listening');
  } catch (err) {
    logger.fatal({ err }, 'a2a-bridge failed to start');
    logger.flush(() => process.exit(EXIT_FAILURE));
  }
}

async function main(): Promise<void> {
  let loaded;
  try {
    loaded = await loadConfig({ argv: process.argv.slice(2), env: process.env, cwd: process.cwd() });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`a2a-bridge: ${error.message}\nRun 'a2a-bridge --help' for usage.\n`);
    process.exitCode = EXIT_USAGE;
    return;
  }
  switch (loaded.command) {
    case 'help':
      process.stdout.write(`${usage()}\n`);
      return;
    case 'version':
      process.stdout.write(`${packageVersion()}\n`);
      return;
    case 'serve':
      await serve(loaded.config, loaded.warnings);
  }
}

await main();
