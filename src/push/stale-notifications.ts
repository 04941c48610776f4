import type { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';
import { countBound } from '../lru-count-bound.js';
import type { StreamResponse } from '../model/index.js';
import { eventStatus } from './event-id.js';
import { notifiedKey, NOTIFIED_MAX, NOTIFIED_TTL_MS } from './notified-events.js';
import type { PayloadVersion } from './payload.js';
import type { PushHandler, PushJob, PushLogger } from './queue/types.js';
import { redisScript } from '../redis/connection.js';

/**
 * When the task state a notification reports came about, as this gateway saw it: when the watcher
 * noticed the change. Not the agent's status timestamp: an agent stamps some events and not others (a
 * Task snapshot often carries none), and two clocks would misorder one stream's own events. Undefined for
 * a notification that reports no state (a 1.0 artifact update): it is never superseded by a later one.
 */
export function stateAtOf(event: StreamResponse, noticedAt: number | undefined, version: PayloadVersion): number | undefined {
  // A 0.2.5 receiver gets the whole Task every time: any notification of it reports the task's state.
  return eventStatus(event) || version === '0.2.5' ? noticedAt : undefined;
}

/** The newest task state delivered to each config, so an older one arriving after it can be recognized. */
export interface DeliveredStates {
  /** The newest `stateAt` delivered to the job's config, if any is known. */
  newest(job: PushJob): Promise<number | undefined>;
  /** Notes a delivery; an older one than what is noted already changes nothing. */
  delivered(job: PushJob, stateAt: number): Promise<void>;
}

const configKey = (job: PushJob): string => notifiedKey({ owner: job.owner, taskId: job.taskId, id: job.configId }, 'delivered-state');

/** One process: the most recent configs, bounded; forgotten at a restart. */
export function createMemoryDeliveredStates(max = NOTIFIED_MAX): DeliveredStates {
  const newest = new LRUCache<string, number>(countBound(max));
  return {
    newest: async (job) => newest.get(configKey(job)),
    async delivered(job, stateAt) {
      const key = configKey(job);
      if ((newest.get(key) ?? -Infinity) < stateAt) newest.set(key, stateAt);
    },
  };
}

/** Keeps the larger of the stored and the given value: two replicas noting at once never go backwards. */
const KEEP_NEWEST = `
local current = redis.call('GET', KEYS[1])
if current == false or tonumber(current) < tonumber(ARGV[1]) then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
end
return 1
`;

/** `store: redis`: shared by replicas, `<redis-prefix>push:delivered:<hash>` per config, kept as long as the notified claims. */
export function createRedisDeliveredStates(redis: Redis, prefix: string): DeliveredStates {
  const keepNewest = redisScript(redis, 'a2aBridgePushKeepNewest', 1, KEEP_NEWEST);
  const key = (job: PushJob) => `${prefix}push:delivered:${configKey(job)}`;
  return {
    async newest(job) {
      const value = await redis.get(key(job));
      return value === null ? undefined : Number(value);
    },
    async delivered(job, stateAt) {
      await keepNewest(key(job), String(stateAt), String(NOTIFIED_TTL_MS));
    },
  };
}

/**
 * When a job is too old to be sent once `newest` was: a job reporting a state, when that state is older;
 * one reporting none (a 1.0 artifact update), only when an earlier attempt of it may have arrived already
 * (given up at the timeout), so the receiver is not sent it again after the newer state. One that surely
 * never arrived is still sent, late: text is not lost.
 */
function sentAt(job: PushJob): number | undefined {
  return job.stateAt ?? (job.mayHaveArrived ? job.noticedAt : undefined);
}

/**
 * Whether what `newest` notes makes the job not worth sending: an older state, and also the same one when
 * an earlier attempt of this job may have arrived (its own attempt noted it): a receiver slower than
 * `push-timeout-ms` has it, and sending it again at each retry would repeat it `push-max-attempts` times,
 * then dead-letter it. A job that surely never went out (refused before sending) is sent at the same instant.
 */
function staleness(newest: number | undefined, at: number, job: PushJob): { log: string; error: string } | undefined {
  if (newest === undefined) return undefined;
  if (at < newest) return { log: 'A2A push notification dropped: a newer one was delivered', error: 'a newer notification was delivered' };
  if (at === newest && job.mayHaveArrived) {
    return { log: 'A2A push notification retry dropped: an earlier attempt may have arrived', error: 'an earlier attempt may have arrived' };
  }
  return undefined;
}

/**
 * Drops a notification older than one its config was already sent (a retry of input-required that
 * comes due after the turn that followed ended failed): a receiver's last word about a task is never
 * older than one before it. A state counts as sent once delivered, and also when its attempt was given up
 * at `push-timeout-ms` after the request went out (a receiver slower than the timeout has it all the same).
 * Jobs that report no state pass untouched unless an earlier attempt may have arrived (`sentAt`). When
 * the states cannot be read the notification is delivered: a stale one beats a lost one.
 */
export function skippingStale(handler: PushHandler, states: DeliveredStates, logger: PushLogger): PushHandler {
  return async (job) => {
    const at = sentAt(job);
    if (at === undefined) return handler(job);
    const newest = await states.newest(job).catch((error: unknown) => {
      logger.warn({ err: error, taskId: job.taskId, configId: job.configId }, 'A2A push: delivered states could not be read');
      return undefined;
    });
    const stale = staleness(newest, at, job);
    if (stale !== undefined) {
      logger.info({ taskId: job.taskId, configId: job.configId, eventId: job.eventId }, stale.log);
      return { outcome: 'skipped', error: stale.error };
    }
    const result = await handler(job);
    const stateAt = job.stateAt;
    if (stateAt !== undefined && (result.outcome === 'delivered' || result.mayHaveArrived)) {
      await states.delivered(job, stateAt).catch((error: unknown) => {
        logger.warn({ err: error, taskId: job.taskId, configId: job.configId }, 'A2A push: a delivered state could not be noted');
      });
    }
    return result;
  };
}
