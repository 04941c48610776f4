import { ReplyError, type Redis } from 'ioredis';
import { withCause } from '../../model/error-cause.js';
import { A2AError } from '../../model/index.js';

export interface WriteRefusals {
  /** A registry write: a refusal from a Redis that is connected marks it as refusing writes. */
  track<T>(write: Promise<T>): Promise<T>;
  /**
   * A registry read: no answer in time (`redis-command-timeout-ms`) from a Redis that is connected marks it
   * too. A read that fails for want of a Redis is a refusal for now (503, Retry-After); one Redis refused
   * for what it asked (a wrong type, a script error) is an error of the gateway's, as it was.
   */
  read<T>(read: Promise<T>): Promise<T>;
  /** A connected Redis refused the last write, and no probe write has been taken since. */
  refusing(): boolean;
  stop(): void;
}

/**
 * Whether a Redis that answers still takes writes. Some failures refuse writes and serve reads: out of
 * memory under `noeviction`, a replica (a failover the client has not followed), a script the server
 * cannot run. Then turns would be answered and never recorded, so never scoped to their caller, and
 * only a log line would say so. While it lasts, `/ready` answers 503 (a balancer sends the callers to a
 * replica that can write), and a probe write every `probeEveryMs` ends it once the Redis takes one:
 * without callers there would be no write to tell. A Redis that froze (or a network that drops its packets)
 * answers nothing and keeps the connection: a command that timed out, read or write, counts the same.
 */
/** ioredis's error for a command that got no answer within `commandTimeout`. */
const COMMAND_TIMED_OUT = 'Command timed out';

/** Redis's answers that say it cannot serve for now (a dataset loading, a script running, a failover). */
const FOR_NOW = /^(LOADING|BUSY|MASTERDOWN|TRYAGAIN|CLUSTERDOWN)\b/;

/** A read that failed for want of a Redis (no connection, no answer in time), not for what it asked. */
const isOutOfReach = (error: unknown): boolean =>
  !(error instanceof A2AError) && !(error instanceof ReplyError && !FOR_NOW.test((error as Error).message));

/**
 * A Redis command's failure as a caller is told it: one that failed for want of a Redis is the refusal for now
 * (503, Retry-After), with what Redis said as its cause for the operator's log; any other as it is.
 */
export const outOfReachAsRefusal = (error: unknown): unknown => (isOutOfReach(error) ? withCause(A2AError.registryOutOfReach(), error) : error);

export function watchWriteRefusals(redis: Redis, probeKey: string, probeEveryMs = 2_000): WriteRefusals {
  let refused = false;
  let timer: NodeJS.Timeout | undefined;

  function accepted(): void {
    refused = false;
    clearInterval(timer);
    timer = undefined;
  }

  function refusing(): void {
    // A connection that is down is what `status` already reports.
    if (redis.status !== 'ready' || refused) return;
    refused = true;
    timer = setInterval(probe, probeEveryMs);
    timer.unref();
  }

  function probe(): void {
    redis.set(probeKey, '1', 'PX', Math.max(probeEveryMs * 5, 10_000)).then(accepted, () => undefined);
  }

  return {
    async track(write) {
      try {
        const result = await write;
        accepted();
        return result;
      } catch (error) {
        refusing();
        throw error;
      }
    },
    async read(read) {
      try {
        return await read;
      } catch (error) {
        if (error instanceof Error && error.message === COMMAND_TIMED_OUT) refusing();
        throw outOfReachAsRefusal(error);
      }
    },
    refusing: () => refused,
    stop: () => clearInterval(timer),
  };
}
