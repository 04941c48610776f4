import type { Command } from 'ioredis';
import { isOutOfReach } from '../push/out-of-reach.js';

/**
 * What kind of Redis trouble was counted: the connection failing (refused, not resolved, credentials
 * refused: ioredis's 'error' events), a command that got no answer within its bound (a Redis that froze,
 * a network that drops packets: the connection stays open and no event says so), or Redis answering that
 * it cannot serve for now (LOADING, BUSY, MASTERDOWN, …).
 */
export type RedisErrorKind = 'connection' | 'timeout' | 'unavailable';

/** ioredis's error for a command that got no answer within `commandTimeout`. */
export const COMMAND_TIMED_OUT = 'Command timed out';

/**
 * The kind of a failed command's error when it means Redis is out of reach; undefined for any other
 * (a script's NOSCRIPT that ioredis answers itself, a wrong type, a connection closed by the gateway): a
 * connection that is down is counted by its own 'error' events, once per attempt, not once per command.
 */
export function commandFailureKind(error: unknown): Exclude<RedisErrorKind, 'connection'> | undefined {
  if (!(error instanceof Error)) return undefined;
  if (error.message === COMMAND_TIMED_OUT) return 'timeout';
  return error.name === 'ReplyError' && isOutOfReach(error) ? 'unavailable' : undefined;
}

/** What watchCommands reads of a connection (ioredis's `Redis`): every command goes through sendCommand, a pipeline's too. */
export interface CommandSender {
  sendCommand(command: Command, stream?: never): unknown;
}

export interface CommandOutcomes {
  answered(): void;
  failed(error: unknown, command: Command): void;
}

/**
 * Tells `outcomes` how each command of `connection` ends. ioredis sends a command again after a reconnect
 * (through sendCommand once more): each is told once.
 */
export function watchCommands(connection: CommandSender, outcomes: CommandOutcomes): void {
  const seen = new WeakSet<Command>();
  const send = connection.sendCommand.bind(connection);
  connection.sendCommand = (command: Command, stream?: never) => {
    if (!seen.has(command)) {
      seen.add(command);
      command.promise.then(outcomes.answered, (error: unknown) => outcomes.failed(error, command));
    }
    return send(command, stream);
  };
}
