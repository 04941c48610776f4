/**
 * watchRedis (observability/redis-errors.ts): what every store tells of its Redis connection failing and
 * coming back. On a fake connection and a clock the test moves; then on real ioredis connections to a port
 * nothing listens on, to a host that does not resolve, and to a Redis that refuses the password offered,
 * each with credentials in its URL that no line may carry.
 */
import { EventEmitter } from 'node:events';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { redisEndpointText, redisErrorCounts, REDIS_WARN_EVERY_MS, watchRedis, type WatchedRedis } from '../../src/observability/redis-errors.js';
import { connectRedis } from '../../src/redis/connection.js';
import { CLOSED_PORT } from '../support/free-port.js';
import { ownRedis, type OwnRedis } from '../support/redis-server.js';
import { startPasswordRedis } from '../support/password-redis.js';
import { waitUntil } from '../support/wait-until.js';

interface Told {
  level: 'warn' | 'info';
  fields: Record<string, unknown>;
  message: string;
}

function recorder() {
  const told: Told[] = [];
  return {
    told,
    logger: {
      warn: (fields: object, message: string) => void told.push({ level: 'warn', fields: fields as Record<string, unknown>, message }),
      info: (fields: object, message: string) => void told.push({ level: 'info', fields: fields as Record<string, unknown>, message }),
    },
    text: () => JSON.stringify(told),
  };
}

function fakeConnection(options: WatchedRedis['options']): EventEmitter & WatchedRedis {
  return Object.assign(new EventEmitter(), { options });
}

const refused = (port: number): Error =>
  Object.assign(new Error(`connect ECONNREFUSED 127.0.0.1:${port}`), { code: 'ECONNREFUSED', errno: -111, syscall: 'connect' });

describe('watchRedis on a connection that fails and comes back', () => {
  it('warns once per 30 s per store with the store, host:port and error, counts the rest, and says when it is ready again', () => {
    const { told, logger } = recorder();
    let time = 1_000_000;
    const connection = fakeConnection({ host: '10.0.0.7', port: 6390, password: 'p4ss-word-1' });
    const before = redisErrorCounts().get('task-aliases') ?? 0;
    watchRedis(connection, { store: 'task-aliases', logger, now: () => time });

    for (let attempt = 0; attempt < 20; attempt++) {
      connection.emit('error', refused(6390));
      time += 500;
    }
    expect(told).toEqual([
      {
        level: 'warn',
        fields: {
          store: 'task-aliases',
          redis: '10.0.0.7:6390',
          kind: 'connection',
          error: 'connect ECONNREFUSED 127.0.0.1:6390',
          code: 'ECONNREFUSED',
        },
        message: 'Redis connection of the task-aliases store failed (10.0.0.7:6390): connect ECONNREFUSED 127.0.0.1:6390',
      },
    ]);
    expect(redisErrorCounts().get('task-aliases')).toBe(before + 20);

    time += REDIS_WARN_EVERY_MS;
    connection.emit('error', refused(6390));
    expect(told).toHaveLength(2);
    expect(told[1]!.fields).toMatchObject({ store: 'task-aliases', leftOut: 19 });

    connection.emit('ready');
    connection.emit('ready');
    expect(told.slice(2)).toEqual([
      {
        level: 'info',
        fields: { store: 'task-aliases', redis: '10.0.0.7:6390' },
        message: 'Redis connection of the task-aliases store is ready again (10.0.0.7:6390)',
      },
    ]);
  });

  it('says nothing on a ready connection that had not failed, and each store has its own throttle', () => {
    const { told, logger } = recorder();
    const registry = fakeConnection({ host: 'redis.internal', port: 6379 });
    const lanes = fakeConnection({ host: 'redis.internal', port: 6379 });
    watchRedis(registry, { store: 'task-registry', logger });
    watchRedis(lanes, { store: 'context-lanes', logger });
    registry.emit('ready');
    expect(told).toEqual([]);
    registry.emit('error', new Error('getaddrinfo ENOTFOUND redis.internal'));
    lanes.emit('error', new Error('getaddrinfo ENOTFOUND redis.internal'));
    registry.emit('error', new Error('getaddrinfo ENOTFOUND redis.internal'));
    expect(told.map((line) => [line.level, line.fields.store])).toEqual([
      ['warn', 'task-registry'],
      ['warn', 'context-lanes'],
    ]);
  });

  it('watches a second connection of the same store (a duplicate) under the same throttle', () => {
    const { told, logger } = recorder();
    const commands = fakeConnection({ host: '127.0.0.1', port: 6379 });
    const blocking = fakeConnection({ host: '127.0.0.1', port: 6379 });
    const watchAnother = watchRedis(commands, { store: 'push-queue', logger });
    watchAnother(blocking);
    commands.emit('error', refused(6379));
    blocking.emit('error', refused(6379));
    expect(told).toHaveLength(1);
    blocking.emit('ready');
    expect(told.at(-1)).toMatchObject({ level: 'info', fields: { store: 'push-queue' } });
  });

  it('never tells the password, even when an error repeats it or a URL with credentials', () => {
    const { logger, text } = recorder();
    const connection = fakeConnection({ host: '127.0.0.1', port: 6379, password: 'hunter2-secret', sentinelPassword: 'sentinel-secret-9' });
    watchRedis(connection, { store: 'turn-slots', logger, everyMs: 0 });
    const auth = Object.assign(new Error('WRONGPASS invalid username-password pair or user is disabled. (hunter2-secret)'), {
      command: { name: 'auth', args: ['operator', 'hunter2-secret'] },
    });
    connection.emit('error', auth);
    connection.emit('error', new Error('could not reach redis://operator:url-secret-3@10.1.1.1:6379 (sentinel-secret-9)'));
    expect(text()).toContain('WRONGPASS');
    expect(text()).toContain('[redacted]');
    for (const secret of ['hunter2-secret', 'sentinel-secret-9', 'url-secret-3', '"auth"']) expect(text()).not.toContain(secret);
  });

  it('counts without a logger', () => {
    const connection = fakeConnection({});
    const before = redisErrorCounts().get('conversation-languages') ?? 0;
    watchRedis(connection, { store: 'conversation-languages' });
    connection.emit('error', new Error('boom'));
    connection.emit('ready');
    expect(redisErrorCounts().get('conversation-languages')).toBe(before + 1);
  });
});

describe('redisEndpointText', () => {
  it('names host:port, a socket path, or a Sentinel master with its sentinels: never credentials', () => {
    expect(redisEndpointText(fakeConnection({}))).toBe('localhost:6379');
    expect(redisEndpointText(fakeConnection({ host: '::1', port: 7000, password: 'x' }))).toBe('[::1]:7000');
    expect(redisEndpointText(fakeConnection({ path: '/run/redis.sock' }))).toBe('/run/redis.sock');
    expect(
      redisEndpointText(
        fakeConnection({
          sentinels: [
            { host: 's1', port: 26379 },
            { host: 's2', port: 26380 },
          ],
          name: 'mymaster',
          password: 'data-node-secret',
          sentinelPassword: 'sentinel-secret',
        }),
      ),
    ).toBe('sentinel master mymaster (sentinels s1:26379,s2:26380)');
  });

  it('reads what ioredis took from a URL with user:password, and from a Sentinel URL', () => {
    const plain = connectRedis('redis://operator:url-pass-77@127.0.0.1:6391/2', { lazyConnect: true });
    const sentinel = connectRedis('redis+sentinel://:node-pass-88@s1:26379,s2/primary-a?sentinelPassword=sentinel-pass-99', { lazyConnect: true });
    try {
      expect(redisEndpointText(plain)).toBe('127.0.0.1:6391');
      expect(redisEndpointText(sentinel)).toBe('sentinel master primary-a (sentinels s1:26379,s2:26379)');
    } finally {
      plain.disconnect();
      sentinel.disconnect();
    }
  });
});

describe('watchRedis on real connections', () => {
  const connections: Redis[] = [];
  let server: OwnRedis | undefined;
  afterEach(async () => {
    for (const connection of connections.splice(0)) connection.disconnect();
    await server?.remove();
    server = undefined;
  });

  it("a port nothing listens on: one warning naming host:port and ECONNREFUSED over ~2 s of reconnects, never the URL's password", async () => {
    const port = CLOSED_PORT;
    const { told, logger, text } = recorder();
    const redis = connectRedis(`redis://operator:url-password-5151@127.0.0.1:${port}`, { retryStrategy: () => 50 });
    connections.push(redis);
    const before = redisErrorCounts().get('task-registry') ?? 0;
    watchRedis(redis, { store: 'task-registry', logger });
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(redisErrorCounts().get('task-registry')! - before).toBeGreaterThan(5);
    expect(told).toHaveLength(1);
    expect(told[0]).toMatchObject({ level: 'warn', fields: { store: 'task-registry', redis: `127.0.0.1:${port}`, code: 'ECONNREFUSED' } });
    expect(told[0]!.message).toContain('ECONNREFUSED');
    expect(text()).not.toContain('url-password-5151');
  });

  it('a Redis that starts late: the warning, then one info line once the connection is ready', async () => {
    server = await ownRedis({ down: true });
    const port = Number(new URL(server.url).port);
    const { told, logger } = recorder();
    const redis = connectRedis(server.url, { retryStrategy: () => 50 });
    connections.push(redis);
    watchRedis(redis, { store: 'push-configs', logger });
    await waitUntil(async () => told.length === 1);
    await server.start();
    await waitUntil(async () => told.length === 2, 10_000);
    expect(told.map((line) => [line.level, line.fields.store, line.fields.redis])).toEqual([
      ['warn', 'push-configs', `127.0.0.1:${port}`],
      ['info', 'push-configs', `127.0.0.1:${port}`],
    ]);
  });

  it('a host that does not resolve: the warning names it', async () => {
    const { told, logger } = recorder();
    const redis = connectRedis('redis://:dns-password-6262@no-such-redis-host.invalid:6380', { retryStrategy: () => 100 });
    connections.push(redis);
    watchRedis(redis, { store: 'context-lanes', logger });
    await waitUntil(async () => told.length > 0, 10_000);
    expect(told[0]!.fields).toMatchObject({ store: 'context-lanes', redis: 'no-such-redis-host.invalid:6380' });
    expect(told[0]!.fields.error).toMatch(/no-such-redis-host\.invalid/);
    expect(JSON.stringify(told)).not.toContain('dns-password-6262');
  });

  it('a Redis that refuses the password offered: WRONGPASS, never the password', async () => {
    const passwordRedis = await startPasswordRedis('the-right-password-1');
    try {
      const { told, logger, text } = recorder();
      const redis = connectRedis(passwordRedis.url('a-wrong-password-7373'), { retryStrategy: () => 50 });
      connections.push(redis);
      watchRedis(redis, { store: 'turn-slots', logger });
      await waitUntil(async () => told.length > 0, 10_000);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(told).toHaveLength(1);
      expect(told[0]!.fields).toMatchObject({ store: 'turn-slots', redis: `127.0.0.1:${passwordRedis.port}` });
      expect(told[0]!.message).toMatch(/WRONGPASS|invalid password/);
      expect(text()).not.toContain('a-wrong-password-7373');
      expect(text()).not.toContain('the-right-password-1');
    } finally {
      passwordRedis.stop();
    }
  });
});

describe('watchRedis on a Redis that froze', () => {
  let server: OwnRedis | undefined;
  const connections: Redis[] = [];
  afterEach(async () => {
    server?.thaw();
    for (const connection of connections.splice(0)) connection.disconnect();
    await server?.remove();
    server = undefined;
  });

  /**
   * A connection to a Redis of the test's own, its commands bounded at a second, watched as the push-configs store's.
   * Not 300 ms: the commands before the freeze and after the thaw go through the same bound, and a loaded host's
   * stall of a few hundred ms timed them out.
   */
  async function watchedOwnRedis() {
    const own = await ownRedis();
    server = own;
    const { told, logger } = recorder();
    const redis = connectRedis(own.url, { commandTimeout: 1_000 });
    connections.push(redis);
    watchRedis(redis, { store: 'push-configs', logger });
    return { told, redis, own };
  }

  it('a command without an answer in time is counted as a timeout and told once, naming the bound; the first answer after it is told at info', async () => {
    const { told, redis, own } = await watchedOwnRedis();
    await redis.set('frozen-key', 'v');
    const before = redisErrorCounts('timeout').get('push-configs') ?? 0;
    const connectionErrors = redisErrorCounts('connection').get('push-configs') ?? 0;

    own.freeze();
    const failures = await Promise.all(
      [redis.get('frozen-key'), redis.get('frozen-key'), redis.set('frozen-key', 'w')].map((p) => p.catch((e: Error) => e.message)),
    );
    expect(failures).toEqual(['Command timed out', 'Command timed out', 'Command timed out']);
    expect(redisErrorCounts('timeout').get('push-configs')).toBe(before + 3);
    expect(redisErrorCounts('connection').get('push-configs') ?? 0).toBe(connectionErrors);
    const port = new URL(own.url).port;
    expect(told).toEqual([
      {
        level: 'warn',
        fields: { store: 'push-configs', redis: `127.0.0.1:${port}`, kind: 'timeout', error: 'no answer within 1000 ms' },
        message: `Redis connection of the push-configs store failed (127.0.0.1:${port}): no answer within 1000 ms`,
      },
    ]);

    own.thaw();
    expect(await redis.get('frozen-key')).toBe('w');
    expect(told.slice(1)).toEqual([
      {
        level: 'info',
        fields: { store: 'push-configs', redis: `127.0.0.1:${port}` },
        message: `Redis connection of the push-configs store answers again (127.0.0.1:${port})`,
      },
    ]);
  });

  it("a command Redis refuses for what it asks (a wrong type) is the caller's error, not Redis trouble", async () => {
    const { told, redis } = await watchedOwnRedis();
    await redis.set('a-string', 'v');
    const before = [...redisErrorCounts()].reduce((sum, [, count]) => sum + count, 0);
    await expect(redis.lpush('a-string', 'x')).rejects.toThrow(/WRONGTYPE/);
    // A script Redis forgot (SCRIPT FLUSH, a restart): ioredis's EVALSHA is refused (NOSCRIPT) and it sends EVAL itself.
    redis.defineCommand('frozenTestEcho', { numberOfKeys: 0, lua: "return 'echo'" });
    const echo = () => (redis as unknown as { frozenTestEcho(): Promise<string> }).frozenTestEcho();
    expect(await echo()).toBe('echo');
    await redis.script('FLUSH');
    expect(await echo()).toBe('echo');
    expect([...redisErrorCounts()].reduce((sum, [, count]) => sum + count, 0)).toBe(before);
    expect(told).toEqual([]);
  });
});
