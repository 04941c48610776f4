/**
 * The gateway's own logger (`createLogger`, JSON lines at `info` unless told otherwise) keeping each line it
 * writes, for a test that waits for a log line, checks one was never written, or reads its fields.
 */
import type { Logger } from 'pino';
import { createLogger, type LogLevel } from '../../src/log.js';

/** One line as written: its message, its level (pino's number: 20 debug, 30 info, 40 warn) and the fields logged with it. */
export type LogLine = Record<string, unknown> & { msg: string; level: number };

export interface CapturedLog {
  logger: Logger;
  /** The messages (`msg`) logged so far, oldest first. */
  readonly messages: readonly string[];
  /** The lines logged so far, oldest first. */
  readonly lines: readonly LogLine[];
  /** Whether a line with exactly this message was logged. */
  logged(message: string): boolean;
}

/** `level`: the lowest level kept, for a test that reads debug lines or must see only the warnings. */
export function capturedLog(level: LogLevel = 'info'): CapturedLog {
  const messages: string[] = [];
  const lines: LogLine[] = [];
  const logger = createLogger(level, {
    write(text: string) {
      const line = JSON.parse(text) as LogLine;
      lines.push(line);
      messages.push(line.msg);
    },
  });
  return { logger, messages, lines, logged: (message) => messages.includes(message) };
}
