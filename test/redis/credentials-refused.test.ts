/**
 * A connection of the gateway (connectRedis) whose Redis comes to refuse its credentials (the password
 * rotated under a running gateway: CONFIG SET requirepass, then every connection dropped). ioredis
 * reconnects, each TCP connect succeeds and each AUTH is refused: a command that was sent on the
 * connection that dropped used to stay pending for as long as that lasts (maxRetriesPerRequest counts
 * attempts that fail to connect, and these connect), so a caller waited for its own timeout and a stop
 * waited forever. Each command now fails promptly with the refusal, and a Redis that restarts without
 * refusing anything is still ridden out. A redis-server of the test's own, with a password.
 */
import { once } from 'node:events';
import { createConnection, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createRedisTaskAliases } from '../../src/core/task-aliases/redis.js';
import { closeRedis, connectRedis, failQueued, isCredentialsRefusal } from '../../src/redis/connection.js';
import { CLOSED_PORT } from '../support/free-port.js';
import { startPasswordRedis, type PasswordRedis } from '../support/password-redis.js';
import { ownRedis } from '../support/redis-server.js';
import { waitUntil } from '../support/wait-until.js';

const PASSWORD = 'refused-test-password-3f9a';
const OTHER_PASSWORD = 'rotated-test-password-b12c';

let port: number;
let server: PasswordRedis;
const open: Redis[] = [];

/** How a promise ended, or 'pending' if it has not within `ms`. */
async function settledWithin(promise: Promise<unknown>, ms: number): Promise<{ outcome: 'resolved' | 'rejected' | 'pending'; error?: Error }> {
  let timer: NodeJS.Timeout | undefined;
  const pending = new Promise<{ outcome: 'pending' }>((resolve) => (timer = setTimeout(() => resolve({ outcome: 'pending' }), ms)));
  const settled = promise.then(
    () => ({ outcome: 'resolved' as const }),
    (error: Error) => ({ outcome: 'rejected' as const, error }),
  );
  try {
    return await Promise.race([settled, pending]);
  } finally {
    clearTimeout(timer);
  }
}

const admin = (password: string, run: (redis: Redis) => Promise<unknown>) => server.admin(password, run);

/** The password changes and every connection drops: their reconnections offer the old one. */
const rotatePassword = () => server.changePassword(PASSWORD, OTHER_PASSWORD);

function connection(options: Parameters<typeof connectRedis>[1] = {}, url = `redis://:${PASSWORD}@127.0.0.1:${port}`): Redis {
  const redis = connectRedis(url, options);
  redis.on('error', () => undefined);
  open.push(redis);
  return redis;
}

const refusedOnce = (redis: Redis) => new Promise<void>((resolve) => redis.on('error', (error) => isCredentialsRefusal(error) && resolve()));

beforeAll(async () => {
  server = await startPasswordRedis(PASSWORD);
  port = server.port;
});
afterEach(async () => {
  for (const redis of open.splice(0)) redis.disconnect();
  // Back to the configured password, whichever one the server has now.
  await admin(OTHER_PASSWORD, (redis) => redis.config('SET', 'requirepass', PASSWORD)).catch(() => undefined);
});
afterAll(() => server.stop());

describe('a connection whose Redis comes to refuse its credentials', () => {
  it.each([
    ['maxRetriesPerRequest 1', { maxRetriesPerRequest: 1 }],
    ['the default maxRetriesPerRequest (20)', {}],
  ])('fails a command that was in flight when the connection dropped (%s), without the password', async (_name, options) => {
    const redis = connection(options);
    await redis.ping();
    // In flight until the drop, as the push queue's XREADGROUP BLOCK is.
    const inFlight = redis.blpop(`refused-${Date.now()}`, 0);
    await rotatePassword();
    const settled = await settledWithin(inFlight, 3_000);
    expect(settled.outcome).toBe('rejected');
    expect(settled.error?.message).toContain('WRONGPASS');
    expect(JSON.stringify(settled.error, Object.getOwnPropertyNames(settled.error))).not.toContain(PASSWORD);
  });

  it('fails a command sent while it is refused at once, and answers again once Redis takes the credentials', async () => {
    // The first attempt after the drop at once, the next ones 5 s apart: without failing at once, a command
    // waits 5 s for the next one, which a slow host cannot blur with failing at once.
    const redis = connection({ maxRetriesPerRequest: 2, retryStrategy: (times) => (times === 1 ? 50 : 5_000) });
    await redis.ping();
    const refused = refusedOnce(redis);
    await rotatePassword();
    await refused;
    const started = Date.now();
    const settled = await settledWithin(redis.get('some-key'), 3_000);
    expect(settled.outcome).toBe('rejected');
    expect(settled.error?.message).toContain('WRONGPASS');
    expect(Date.now() - started).toBeLessThan(2_500);

    await admin(OTHER_PASSWORD, (admin) => admin.config('SET', 'requirepass', PASSWORD));
    await waitUntil(async () => (await redis.ping()) === 'PONG', 10_000);
  });

  it('fails the commands of its duplicates the same way', async () => {
    const redis = connection({ maxRetriesPerRequest: 1, lazyConnect: true });
    const duplicate = redis.duplicate();
    duplicate.on('error', () => undefined);
    open.push(duplicate);
    await duplicate.ping();
    const inFlight = duplicate.blpop(`refused-duplicate-${Date.now()}`, 0);
    await rotatePassword();
    expect((await settledWithin(inFlight, 3_000)).outcome).toBe('rejected');
  });

  it('answers a request-path call (a task alias lookup) with an error promptly', async () => {
    // A proxy that can keep Redis's replies from the gateway, so the lookup is in flight when the connection drops.
    const proxy = await replyHoldingProxy(port);
    const aliases = createRedisTaskAliases({ url: `redis://:${PASSWORD}@127.0.0.1:${proxy.port}`, prefix: `refused-${Date.now()}:`, idleTtlMs: 0 });
    try {
      expect(await aliases.lookup('client-task', 'owner')).toBeUndefined();
      proxy.holdReplies();
      const lookup = aliases.lookup('client-task', 'owner');
      await waitUntil(async () => proxy.held() > 0);
      await rotatePassword();
      proxy.passReplies();
      const settled = await settledWithin(lookup, 3_000);
      expect(settled.outcome).toBe('rejected');
      // Told to the caller as the store being out of reach; what Redis said stays the cause, for the log.
      expect(settled.error?.message).toBe('The gateway cannot record tasks right now; try again in a moment');
      expect(String((settled.error as { cause?: Error } | undefined)?.cause?.message)).toContain('WRONGPASS');
      // Later calls fail at once: before ioredis's next attempt to connect, however slow the host.
      const attempts = proxy.connections();
      expect((await settledWithin(aliases.lookup('another-task', 'owner'), 3_000)).outcome).toBe('rejected');
      expect(proxy.connections()).toBe(attempts);
    } finally {
      await aliases.close();
      await proxy.close();
    }
  });
});

describe('ending a connection', () => {
  it('fails what it still holds while it reconnects (ioredis disconnect() leaves it pending)', async () => {
    const nothing = CLOSED_PORT;
    const redis = connection({ maxRetriesPerRequest: 50 }, `redis://127.0.0.1:${nothing}`);
    const waiting = redis.get('some-key');
    await waitUntil(async () => redis.status === 'reconnecting');
    await closeRedis(redis);
    const settled = await settledWithin(waiting, 1_000);
    expect(settled.outcome).toBe('rejected');
    expect(settled.error?.message).toBe('Connection is closed.');
  });

  it('fails a command sent on a connection that dropped once the credentials were refused, at once', async () => {
    const redis = connection({ maxRetriesPerRequest: 1 });
    await redis.ping();
    const inFlight = redis.blpop(`refused-close-${Date.now()}`, 0);
    const dropped = once(redis, 'reconnecting');
    await rotatePassword();
    await dropped;
    await closeRedis(redis);
    expect((await settledWithin(inFlight, 1_000)).outcome).toBe('rejected');
  });
});

describe('a Redis that restarts without refusing anything', () => {
  it('is ridden out: a command in flight at the drop is sent again and answered, not failed', async () => {
    const restarting = await ownRedis();
    const redis = connection({ maxRetriesPerRequest: 20 }, restarting.url);
    const writer = connection({ maxRetriesPerRequest: 20 }, restarting.url);
    try {
      await redis.ping();
      const list = `restart-${Date.now()}`;
      const popped = redis.blpop(list, 0);
      await restarting.stop();
      await new Promise((resolve) => setTimeout(resolve, 300));
      await restarting.start();
      await waitUntil(async () => redis.status === 'ready', 10_000);
      await writer.rpush(list, 'after the restart');
      expect(await popped).toEqual([list, 'after the restart']);
    } finally {
      await restarting.remove();
    }
  });
});

/**
 * What failQueued reads of ioredis and its types do not show: an ioredis upgrade that renames them makes
 * the tests above fail; this one says why.
 */
describe('the ioredis internals failQueued relies on', () => {
  it('keeps a command in flight at a drop in prevCommandQueue, beside a flushQueue', async () => {
    const redis = connection({ maxRetriesPerRequest: 1 });
    await redis.ping();
    expect(typeof (redis as unknown as { flushQueue?: unknown }).flushQueue).toBe('function');
    const inFlight = redis.blpop(`internals-${Date.now()}`, 0);
    inFlight.catch(() => undefined);
    const dropped = once(redis, 'reconnecting');
    await admin(PASSWORD, (admin) => admin.client('KILL', 'TYPE', 'normal'));
    await dropped;
    const previous = (redis as unknown as { prevCommandQueue?: { length: number } | null }).prevCommandQueue;
    expect(previous?.length).toBe(1);
    failQueued(redis, new Error('failed here'));
    await expect(inFlight).rejects.toThrow('failed here');
  });
});

interface ReplyHoldingProxy {
  port: number;
  holdReplies(): void;
  passReplies(): void;
  /** Bytes of replies held back since holdReplies(). */
  held(): number;
  /** Connections accepted so far: each of ioredis's attempts to connect. */
  connections(): number;
  close(): Promise<void>;
}

/** A TCP proxy to the Redis on `target` that drops Redis's replies while holding them back. */
async function replyHoldingProxy(target: number): Promise<ReplyHoldingProxy> {
  let holding = false;
  let held = 0;
  let connections = 0;
  const sockets = new Set<Socket>();
  const proxy: Server = createServer((client) => {
    connections++;
    const upstream = createConnection({ port: target, host: '127.0.0.1' });
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => {
        sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    client.on('data', (data) => upstream.write(data));
    upstream.on('data', (data) => {
      if (holding) held += data.length;
      else client.write(data);
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return {
    port: (proxy.address() as AddressInfo).port,
    holdReplies: () => {
      holding = true;
      held = 0;
    },
    passReplies: () => void (holding = false),
    held: () => held,
    connections: () => connections,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => proxy.close(resolve));
    },
  };
}
