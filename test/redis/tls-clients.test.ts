/**
 * Every Redis client the gateway makes from its config gets `redis-tls`: the stores, the context
 * lanes, the task aliases, the push configs and queue, and the start-up cluster check. Each client is
 * recorded with what it was asked to reach, and connected to the test Redis instead (plain TCP: the
 * TLS itself is tried against real servers in e2e/hardening/redis-tls.test.ts).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { defaultConfig } from '../../src/config/schema.js';
import { createContextLanesFor } from '../../src/core/context-lanes-factory.js';
import { createTaskAliases } from '../../src/core/task-aliases/index.js';
import { createTaskRegistry } from '../../src/core/task-registry/index.js';
import { createLogger } from '../../src/log.js';
import { loadMappingProfile } from '../../src/mappings/index.js';
import { createPushService } from '../../src/push/service.js';
import { assertRedisKeysFitCluster } from '../../src/redis/cluster-check.js';
import type { RedisTarget } from '../../src/redis/connection.js';
import { makeCertificates, type Certificates } from '../support/certificates.js';
import { requireRedis } from '../support/redis.js';

const asked = vi.hoisted(() => [] as RedisTarget[]);
vi.mock('../../src/redis/connection.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../src/redis/connection.js')>();
  const { REDIS_URL } = await import('../support/redis.js');
  const recorded =
    (make: typeof actual.redisClient): typeof actual.redisClient =>
    (target, options) => {
      asked.push(target);
      return make(REDIS_URL, options);
    };
  return { ...actual, redisClient: recorded(actual.redisClient), connectRedis: recorded(actual.connectRedis) };
});

let certificates: Certificates;
let dir: string;
beforeAll(async () => {
  await requireRedis();
  certificates = await makeCertificates({});
  dir = await mkdtemp(path.join(tmpdir(), 'a2a-bridge-redis-tls-'));
});
afterAll(async () => {
  await certificates?.cleanup();
  if (dir) await rm(dir, { recursive: true, force: true });
});

it('every Redis client the config makes is given the TLS options of its URL', async () => {
  const config = defaultConfig({
    store: 'redis',
    'redis-url': 'rediss://redis.internal:6380',
    'redis-prefix': `a2a-bridge-test:${randomUUID()}:`,
    'redis-tls': { 'ca-file': certificates.file('ca.pem') },
    'push-notifications': true,
    'push-queue': 'redis-streams',
    'push-redis-url': 'rediss://queue.internal:6380',
    'persistence-dir': dir,
  });
  const logger = createLogger('silent');
  await assertRedisKeysFitCluster(config);
  const registry = createTaskRegistry(config);
  const aliases = createTaskAliases(config);
  const lanes = createContextLanesFor(config);
  const push = await createPushService(config, { registry, logger, profile: loadMappingProfile('a2a-0.2.5') });
  await push.stop();
  await Promise.all([lanes.close(), aliases.close(), registry.close()]);

  // The cluster check of each URL; the registry, aliases, lanes and push configs on redis-url; the push queue on push-redis-url.
  const [store, queue] = ['rediss://redis.internal:6380', 'rediss://queue.internal:6380'];
  const withCa = (url: string) => ({ url, tls: { tls: { ca: expect.any(Buffer) } } });
  expect(asked.filter((target) => typeof target === 'string')).toEqual([]);
  expect(asked.filter((target) => typeof target !== 'string' && target.url === store)).toEqual(Array(5).fill(withCa(store)));
  expect(asked.filter((target) => typeof target !== 'string' && target.url === queue)).toEqual(Array(2).fill(withCa(queue)));
  expect(asked).toHaveLength(7);
});
