import type { GatewayConfig } from '../config/schema.js';
import { redisEndpoint } from '../redis/tls.js';
import type { RedisWatchLogger } from '../observability/redis-errors.js';
import { createTurnSlots, type TurnSlots } from './turn-limits.js';
import { createRedisTurnSlots } from './turn-slots-redis.js';

/** How long a turn waits for Redis to count it before it is refused: Redis answers in well under a millisecond when it is there. */
export const TURN_SLOT_ANSWER_WITHIN_MS = 2_000;

/**
 * The slots `limits` asks for, undefined when no client has a cap: shared through Redis with `store: redis`,
 * so a client's cap holds across the replicas, their leases as long as the context lanes' (a crashed
 * replica's turns give back their lanes and their slots together).
 */
export function createTurnSlotsFor(
  config: Pick<GatewayConfig, 'limits' | 'store' | 'redis-url' | 'redis-tls' | 'redis-prefix' | 'tasks'>,
  logger?: RedisWatchLogger,
): TurnSlots | undefined {
  if (config.store !== 'redis') return createTurnSlots(config.limits);
  return createRedisTurnSlots(config.limits, {
    url: redisEndpoint(config),
    prefix: config['redis-prefix'],
    leaseMs: config.tasks['lane-lease-ms'],
    answerWithinMs: TURN_SLOT_ANSWER_WITHIN_MS,
    ...(logger ? { logger } : {}),
  });
}
