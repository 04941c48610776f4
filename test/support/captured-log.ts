/**
 * The gateway's own logger (`createLogger`, JSON lines at `info`) keeping the message of each line it
 * writes, for a test that waits for a log line or checks one was never written.
 */
import type { Logger } from 'pino';
import { createLogger } from '../../src/log.js';

export interface CapturedLog {
  logger: Logger;
  /** The messages (`msg`) logged so far, oldest first. */
  readonly messages: readonly string[];
  /** Whether a line with exactly this message was logged. */
  logged(message: string): boolean;
}

export function capturedLog(): CapturedLog {
  const messages: string[] = [];
  const logger = createLogger('info', {
    write(line: string) {
      messages.push((JSON.parse(line) as { msg: string }).msg);
    },
  });
  return { logger, messages, logged: (message) => messages.includes(message) };
}
