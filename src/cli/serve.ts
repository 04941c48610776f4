import type { Logger } from 'pino';
import type { GatewayConfig } from '../config/schema.js';
import { createLogger } from '../log.js';
import { complain, EXIT_FAILURE, EXIT_USAGE, startupLine } from './exit-codes.js';
import { MAX_TIMER_MS } from '../timed-signal.js';
import { stopWhenNpmParentLost } from './npm-parent-watch.js';

/**
 * First SIGTERM/SIGINT/SIGHUP drains (bounded by drain-timeout-ms plus a margin); a second one exits at once. SIGHUP
 * (the terminal or ssh session that ran it closed) ended the process at once by Node's default, cutting every open
 * stream without its closing frame and logging nothing.
 * Under npm, whose shell does not pass the signal on, the shell's end starts the drain too
 * (npm-parent-watch.ts), but it is no signal: a supervisor that signals the whole process group (systemd,
 * `timeout`, a terminal's Ctrl-C) kills npm and the gateway at once, and the gateway may see npm gone before
 * its own SIGTERM arrives. That SIGTERM is the first signal, not a second one cutting the drain short.
 */
function exitOnSignals(close: () => Promise<void>, logger: Logger, drainMs: number): void {
  let draining = false;
  let signalled = false;
  const drain = (signal: NodeJS.Signals) => {
    if (draining) return;
    draining = true;
    logger.info({ signal }, 'shutting down: draining open requests');
    // drain-timeout-ms may be set up to what a timer can wait: the margin on top must not pass it.
    setTimeout(
      () => {
        logger.error({ drainMs }, 'shutdown did not finish in time');
        process.exit(EXIT_FAILURE);
      },
      Math.min(drainMs + 5_000, MAX_TIMER_MS),
    ).unref();
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
  const onSignal = (signal: NodeJS.Signals) => {
    if (signalled) {
      logger.warn({ signal }, 'second signal: exiting without draining');
      process.exit(EXIT_FAILURE);
    }
    signalled = true;
    drain(signal);
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  process.on('SIGHUP', onSignal);
  stopWhenNpmParentLost(() => {
    if (draining) return;
    logger.warn('npm, which started the gateway, has ended (its shell does not pass SIGTERM on): stopping as for SIGTERM');
    drain('SIGTERM');
  });
}

/**
 * A rejection nobody handled is a bug, and Node's default ends the process for it: every open stream and
 * every running turn of every caller with it. The call it came from has already ended, so the gateway
 * logs it, loudly, and goes on serving the others.
 */
function logUnhandledRejections(logger: Logger): void {
  process.on('unhandledRejection', (reason: unknown) => {
    logger.error({ err: reason }, 'unhandled rejection (a bug in the gateway): logged, and the gateway goes on');
  });
}

/**
 * Starts the gateway. Anything that stops the start (a bad mapping override, a taken port, a store that
 * cannot open) is one plain line on stderr and exit code 2: no stack; a path only when it is the
 * operator's own (a setting's file or folder: startupLine).
 */
export async function serve(config: GatewayConfig, warnings: string[]): Promise<void> {
  const logger = createLogger(config['log-level'], undefined, config['log-format']);
  for (const warning of warnings) logger.warn(warning);
  logUnhandledRejections(logger);
  try {
    // Loaded here, not at the top: help, version and config errors must not pay for (or depend on) the server.
    const { startGateway } = await import('../app.js');
    const gateway = await startGateway(config, logger);
    exitOnSignals(() => gateway.close(), logger, config['drain-timeout-ms']);
    logger.info({ url: gateway.url }, 'a2a-bridge listening');
  } catch (err) {
    logger.flush(() => {
      complain(`cannot start: ${startupLine(err)}`);
      process.exit(EXIT_USAGE);
    });
  }
}
