import { join } from 'node:path';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { GatewayConfig } from '../config/schema.js';
import type { AgentPort, Settling } from '../core/agent-port.js';
import { deferIterable } from '../core/iterables.js';
import { tenantOf } from '../core/tenants.js';
import type { GatewayMetrics } from '../observability/metrics.js';
import { watchRedis } from '../observability/redis-errors.js';
import type { TaskRegistry } from '../core/task-registry/types.js';
import type { MappingProfile } from '../mappings/index.js';
import { withFields } from '../model/index.js';
import { createPushConfigMethods, type PushConfigMethods } from './config-methods.js';
import { disabledPushService, overlay } from './disabled-service.js';
import { createFileConfigStore } from './config-store/file.js';
import type { PushConfigStore } from './config-store/types.js';
import { createPushHandler } from './dispatch.js';
import {
  countedOutcome,
  createPushConfigStore,
  createPushKeyRing,
  createPushQueue,
  maxDeliveryAttempts,
  redisConfigKeyPrefix,
  type PushQueueFactoryOptions,
} from './index.js';
import { resolveNotificationHeaders } from './payload.js';
import { inlineConfigTaker } from './inline-config.js';
import { asFoundOf, statusBeforeTurn } from './as-found.js';
import type { PushQueue } from './queue/types.js';
import { createTaskFollower, type TaskFollower } from './follow.js';
import { recordedTurnMessageId } from './turn-of-record.js';
import { createCarriedTurns, type CarriedTurns } from './carried-turns.js';
import { createFileFollowJournal, inMemoryOnly, type FileFollowJournal, type FollowJournal } from './follow-journal.js';
import { createRedisFollowJournal, type RedisFollowJournal } from './follow-journal-redis.js';
import { createFileNotifiedEvents, createRedisNotifiedEvents, type NotifiedEvents } from './notified-events.js';
import { createMemoryDeliveredStates, createRedisDeliveredStates, skippingStale, type DeliveredStates } from './stale-notifications.js';
import { createPushWatcher, type PushWatcher } from './watch.js';
import type { V025TaskRenderer } from './v025-body.js';
import type { V1EventInliner } from './v1-body.js';
import { closeRedis, connectRedis, requestPathRedis } from '../redis/connection.js';
import { throttledWarnings } from '../throttled-warnings.js';
import { webhookOrigin } from './queue/webhook-origin.js';
import { redisEndpoint } from '../redis/tls.js';

export interface PushServiceDeps {
  registry: TaskRegistry;
  logger: Logger;
  /** Mapping profile of 0.2.5 payloads (the full 0.2.5 Task). */
  profile: MappingProfile;
  /** `store: redis`: the connection push configs live on (not closed here). Without it one is opened from `redis-url`. */
  redis?: Redis;
  /** Queue tuning (tests shorten the backoff); defaults come from the config. */
  queue?: PushQueueFactoryOptions;
  /** Pauses between a follow's attempts (tests shorten them). */
  followRetry?: { initialDelayMs: number; maxDelayMs: number };
  /** Delivery outcomes and queue depth go here. */
  metrics?: GatewayMetrics;
  /** The facade's client-chosen task ids (TaskAliases.clientIdOf): 0.2.5 payloads name a task by the caller's id. */
  clientIdOf?: (upstreamId: string, owner: string) => Promise<string | undefined>;
  /**
   * The 0.2.5 facade's tasks/get answer as a pushed Task (v025-body.ts), read when a body is made: the facade
   * reads through the port push decorates, so it is mounted, and hands it over, after push is made.
   */
  renderV025?: () => V025TaskRenderer | undefined;
  /** What a 1.0 caller is shown of an event's files (v1-body.ts): its webhook's bodies show the same. */
  inlineV1?: V1EventInliner;
}

export interface PushService {
  /**
   * Wraps the core port (the gateway): push-config methods are served here and never forwarded,
   * inline configs are taken off SendMessage, and task events are turned into push jobs. Pass the
   * gateway: push reads the registry after its `settled`. Other properties of `port` stay reachable.
   */
  decorate<P extends AgentPort & Settling>(port: P): P;
  /** Starts delivering queued jobs (including those left from before a restart). */
  start(): void;
  /** Queues every event already accepted, then stops the queue (in-flight deliveries finish). */
  stop(): Promise<void>;
}

/**
 * Push notifications owned by the gateway. Configs are kept in Redis with `store: redis`, else in
 * `<persistence-dir>/push_configs.json` (secrets sealed), so jobs queued before a restart still find them.
 *
 * `push-notifications: false`: the four config methods answer -32003, and an inline config on
 * SendMessage is dropped without error (what iac-code and the a2a SDKs do without push: a caller
 * that always sends one keeps working); it is never forwarded upstream either way.
 */
export async function createPushService(config: GatewayConfig, deps: PushServiceDeps): Promise<PushService> {
  if (!config['push-notifications']) return disabledPushService();

  const logger = deps.logger;
  const keyRing = createPushKeyRing(config);
  let ownRedis: Redis | undefined;
  let redis = deps.redis;
  if (config.store === 'redis' && !redis) {
    // Callers wait on it (a config call, an answer whose follow is journaled first): a Redis that froze fails
    // their command within redis-command-timeout-ms, as the registry's do, instead of hanging the call.
    ownRedis = connectRedis(redisEndpoint(config), { lazyConnect: true, ...requestPathRedis(config['redis-command-timeout-ms']) });
    // The config store's and the follow journal's connection: counted, and logged at most every 30 s.
    watchRedis(ownRedis, { store: 'push-configs', logger });
    redis = ownRedis;
  }
  const policy = { maxConfigsPerTask: config['push-max-configs-per-task'], allowPrivate: config['push-allow-private'] };
  // Single node: configs live in the persistence dir next to the queue's journal, so queued jobs survive a restart.
  const fileStore =
    config.store === 'redis' ? undefined : await createFileConfigStore(withFields(policy, { keyRing, dir: config['persistence-dir'], logger }));
  const store: PushConfigStore = fileStore ?? createPushConfigStore(config, { keyRing, redis });
  // Configs go with their task: deleted when this process's registry drops it, or expiring with it in Redis.
  const { registry } = deps;
  // Deletes still being saved: stop() waits for them, so nothing is written to the store after it.
  const deleting = new Set<Promise<void>>();
  const unfollowEvictions =
    registry.drops === 'reported'
      ? registry.onEvicted((taskId) => {
          const deleted = store
            .deleteTask(taskId)
            .catch((error: unknown) => logger.warn({ err: error, taskId }, 'push configs of an evicted task could not be deleted'))
            .finally(() => deleting.delete(deleted));
          deleting.add(deleted);
        })
      : () => undefined;
  if (config.store === 'redis' && registry.drops === 'expire-linked') registry.expireWithTasks(redisConfigKeyPrefix(config['redis-prefix']));
  const queue: PushQueue = createPushQueue(config, { logger, ...deps.queue });
  if (queue.depth) deps.metrics?.watchQueue(config['push-queue'], () => queue.depth!());
  const watchers = new Set<PushWatcher>();
  const followers = new Set<TaskFollower>();
  const carriedTurns = new Set<CarriedTurns>();
  // One replica: follows cut short by a restart are taken up again from the file. Replicas: each holds
  // its follows under a lease in Redis, and those of a replica that is gone are taken over by another.
  let redisJournal: RedisFollowJournal | undefined;
  let journal: FollowJournal = inMemoryOnly;
  let fileJournal: FileFollowJournal | undefined;
  if (config.store !== 'redis') {
    journal = fileJournal = await createFileFollowJournal(config['persistence-dir'], logger);
  } else if (redis && config['push-follow-timeout-ms'] > 0) {
    redisJournal = createRedisFollowJournal({ redis, prefix: config['redis-prefix'], leaseMs: config['push-follow-lease-ms'], logger });
    journal = redisJournal;
  }
  // Replicas that saw the same change queue it once: the first claims it in Redis. One replica keeps its
  // claims in memory, saved at stop, so a follow taken up after a restart does not queue a turn's end again.
  const notified: NotifiedEvents =
    config.store === 'redis' && redis
      ? createRedisNotifiedEvents({ redis, prefix: config['redis-prefix'] })
      : await createFileNotifiedEvents(config['persistence-dir'], logger);
  // What each config was last delivered, so a retry older than it is dropped; shared by replicas like the claims.
  const deliveredStates: DeliveredStates =
    config.store === 'redis' && redis ? createRedisDeliveredStates(redis, config['redis-prefix']) : createMemoryDeliveredStates();
  let started = false;
  let stopping: Promise<void> | undefined;

  const takeInline = inlineConfigTaker({ store, registry, policy, logger });

  return {
    decorate<P extends AgentPort & Settling>(port: P): P {
      const settled = (taskId: string) => port.settled(taskId);
      const watcher = createPushWatcher({
        store,
        queue,
        registry: deps.registry,
        profile: deps.profile,
        events: config['push-events'],
        logger,
        notified,
        settled,
        ...(deps.clientIdOf ? { clientIdOf: deps.clientIdOf } : {}),
        ...(deps.renderV025 ? { renderV025: deps.renderV025 } : {}),
        ...(deps.inlineV1 ? { inlineV1: deps.inlineV1 } : {}),
        // Beside the held jobs: a change whose configs Redis could not give is kept on disk the same way.
        held: { journalDir: join(config['persistence-dir'], 'push-held', 'changes') },
      });
      watchers.add(watcher);
      const timeoutMs = config['push-follow-timeout-ms'];
      const follower = createTaskFollower({
        port,
        watcher,
        timeoutMs,
        maxFollowed: config['push-follow-max'],
        ...(config['push-follow-max-per-owner'] !== undefined ? { maxFollowedPerOwner: config['push-follow-max-per-owner'] } : {}),
        journal,
        logger,
        ...(deps.followRetry ? { retry: deps.followRetry } : {}),
      });
      followers.add(follower);
      const carried = createCarriedTurns({ follower, store, registry: deps.registry, timeoutMs, logger });
      carriedTurns.add(carried);
      const methods: PushConfigMethods = createPushConfigMethods({
        store,
        registry: deps.registry,
        settled,
        revealSecrets: config['push-reveal-secrets'],
      });

      return overlay(
        port,
        withFields(methods, {
          async sendMessage(request, ctx) {
            const { forwarded, inline } = await takeInline(request, ctx, settled);
            const reading = statusBeforeTurn({ registry, settled }, forwarded, ctx.principal);
            const before = reading && (await reading);
            const answer = await port.sendMessage(forwarded, ctx);
            const asFound = asFoundOf(answer, before);
            if (asFound && 'task' in answer) await watcher.answeredAsFound(answer.task.id, asFound, inline);
            else await watcher.observeAnswer(answer, inline, forwarded.message.messageId);
            // Journaled before the caller hears the turn goes on: a crash after the answer still pushes its end.
            await follower.follow(answer, ctx, tenantOf(request), forwarded.message.messageId, asFound);
            return answer;
          },
          sendStreamingMessage: (request, ctx) =>
            deferIterable(async () => {
              const { forwarded, inline } = await takeInline(request, ctx, settled);
              const upstream = port.sendStreamingMessage(forwarded, ctx);
              const from = ctx.pushConfigsOf === undefined ? undefined : { owner: ctx.principal, taskId: ctx.pushConfigsOf };
              const watched = watcher.watchStream(upstream, inline, forwarded.message.messageId, ctx.turnVerdict, from);
              return carried.carry(watched, ctx, tenantOf(request), inline !== undefined || from !== undefined, forwarded.message.messageId);
            }),
          subscribeToTask: (request, ctx) =>
            deferIterable(async () => {
              // The turn at work as the subscription begins: tells its end, if the agent left it unstamped, from another turn's.
              const turnId = await recordedTurnMessageId({ registry: deps.registry, settled }, request.id, ctx.principal);
              return carried.carry(watcher.watchStream(port.subscribeToTask(request, ctx), undefined, turnId), ctx, tenantOf(request), false, turnId);
            }),
          async createTaskPushNotificationConfig(request, ctx) {
            const created = await methods.createTaskPushNotificationConfig(request, ctx);
            await carried.configured(request.taskId, ctx, tenantOf(request));
            return created;
          },
          async cancelTask(request, ctx) {
            const task = await port.cancelTask(request, ctx);
            await watcher.observeAnswer({ task });
            return task;
          },
        } satisfies Partial<AgentPort>),
      );
    },

    start() {
      if (started || stopping) return;
      started = true;
      for (const follower of followers) {
        follower.resume().catch((error: unknown) => logger.warn({ err: error }, 'A2A push follows could not be taken up again'));
      }
      const handler = skippingStale(
        createPushHandler({
          allowPrivate: config['push-allow-private'],
          timeoutMs: config['push-timeout-ms'],
          resolveHeaders: resolveNotificationHeaders(store),
        }),
        deliveredStates,
        logger,
      );
      const metrics = deps.metrics;
      const maxAttempts = maxDeliveryAttempts(config, deps.queue);
      // A receiver out of reach is otherwise told only by its dead letter, some 4 minutes later with the defaults.
      const retrying = throttledWarnings(logger);
      queue.start(
        async (job) => {
          const result = await handler(job);
          const outcome = countedOutcome(job, result, maxAttempts);
          metrics?.pushDelivery(outcome);
          if (outcome === 'retry') {
            const fields = { webhook: webhookOrigin(job.url), taskId: job.taskId, attempt: job.attempt + 1, maxAttempts };
            retrying(
              withFields(fields, { error: result.error ?? `HTTP ${result.status}` }),
              'A2A push notification not delivered: tried again later',
            );
          }
          return result;
        },
        {
          // Given up on without an attempt here (a lease expired too often, a malformed entry): A2ABridgePushDeliveriesFailing counts it too.
          deadLetteredUnattempted: () => metrics?.pushDelivery('permanent'),
        },
      );
    },

    stop() {
      stopping ??= (async () => {
        unfollowEvictions();
        // Streams the drain cut hand their turns to the followers first, which journal them as they stop.
        await Promise.all([...carriedTurns].map((carried) => carried.stop()));
        await Promise.all([...followers].map((follower) => follower.stop()));
        // Before the claims and the queue go: resolving a held change claims it and queues its jobs.
        await Promise.all([...watchers].map((watcher) => watcher.stop()));
        await notified.close();
        // The follows cut short stay in Redis; without the lease another replica claims them at once.
        await redisJournal?.close();
        await Promise.all(deleting);
        // Their journals folded into push_configs.json and push_follows.json: the release before reads only those.
        await Promise.all([fileStore?.close(), fileJournal?.close()]);
        await queue.stop();
        if (ownRedis) await closeRedis(ownRedis);
      })();
      return stopping;
    },
  };
}
