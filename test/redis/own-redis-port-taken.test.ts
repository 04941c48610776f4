/**
 * A redis-server of a test's own is started on a port freePort() found free, and another file's socket can take that
 * port before redis-server binds it (as one did to the metrics port: 'port 36681 on 127.0.0.1 is already in use').
 * redis-server cannot pick a port itself, so the helpers start it again on another port when it says its port is in
 * use: these tests hand them a taken port first.
 */
import { createServer, type AddressInfo, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { freePort } from '../support/free-port.js';
import { launchRedisOnFreePort } from '../support/redis-launch.js';
import { ownRedis, type OwnRedis } from '../support/redis-server.js';
import { killChildren } from '../support/kill-children.js';

const portOf = (url: string) => Number(new URL(url).port);

/** A plain socket listening on `port` (0: one the system picks), answering nothing: another file's server. */
async function occupy(port = 0): Promise<Server> {
  const server = createServer((socket) => socket.on('error', () => undefined));
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', resolve));
  return server;
}

/** Hands out `taken` first, then free ports. */
function takenFirst(taken: number): { pickPort: () => Promise<number>; picked: number[] } {
  const picked: number[] = [];
  return {
    picked,
    pickPort: async () => {
      const port = picked.length === 0 ? taken : await freePort();
      picked.push(port);
      return port;
    },
  };
}

describe('a redis-server of a test own whose port another socket took first', () => {
  const servers: Server[] = [];
  const redises: OwnRedis[] = [];
  afterEach(async () => {
    await Promise.all(redises.splice(0).map((redis) => redis.remove()));
    await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
  });

  it('ownRedis starts on another port, and that is the Redis its url names', async () => {
    const holder = await occupy();
    servers.push(holder);
    const taken = (holder.address() as AddressInfo).port;
    const ports = takenFirst(taken);
    const redis = await ownRedis({}, ports);
    redises.push(redis);
    expect(ports.picked[0]).toBe(taken);
    expect(ports.picked).toHaveLength(2);
    expect(portOf(redis.url)).toBe(ports.picked[1]);
    const client = new Redis(redis.url, { maxRetriesPerRequest: 0 });
    try {
      expect(await client.ping()).toBe('PONG');
    } finally {
      client.disconnect();
    }
  });

  it('a port another redis-server holds is taken too: the two never share one server', async () => {
    const other = await ownRedis();
    redises.push(other);
    const redis = await ownRedis({}, takenFirst(portOf(other.url)));
    redises.push(redis);
    expect(portOf(redis.url)).not.toBe(portOf(other.url));
    const [mine, theirs] = [new Redis(redis.url), new Redis(other.url)];
    try {
      await mine.set('whose', 'mine');
      expect(await theirs.get('whose')).toBeNull();
    } finally {
      mine.disconnect();
      theirs.disconnect();
    }
  });

  it('launchRedisOnFreePort, which the password and sentinel helpers start through, moves on too', async () => {
    const holder = await occupy();
    servers.push(holder);
    const ports = takenFirst((holder.address() as AddressInfo).port);
    const { port, child } = await launchRedisOnFreePort((port) => ['--port', String(port), '--bind', '127.0.0.1', '--save', ''], ports);
    try {
      expect(port).toBe(ports.picked[1]);
      const client = new Redis({ port, maxRetriesPerRequest: 0 });
      expect(await client.ping()).toBe('PONG');
      client.disconnect();
    } finally {
      await killChildren([child]);
    }
  });

  it('a restart on a port taken while it was down fails at once, naming the port', async () => {
    const redis = await ownRedis();
    redises.push(redis);
    await redis.stop();
    const port = portOf(redis.url);
    servers.push(await occupy(port));
    await expect(redis.start()).rejects.toThrow(`port ${port} on 127.0.0.1 is already in use`);
  });
});
