import { createServer, type AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { defaultConfig } from '../../src/config/schema.js';
import { assertRedisKeysFitCluster, clusterProblem, hashTagOf, redisKeyGroups } from '../../src/redis/cluster-check.js';
import { CLOSED_PORT } from '../support/free-port.js';

describe('hash tags', () => {
  it('follow the cluster rule: the first {…} when not empty, else the whole key', () => {
    expect(hashTagOf('{a2a}:t:1')).toBe('a2a');
    expect(hashTagOf('x{a2a}y{b}')).toBe('a2a');
    expect(hashTagOf('a2a-bridge:t:1')).toBe('a2a-bridge:t:1');
    expect(hashTagOf('{}:t:1')).toBe('{}:t:1');
    expect(hashTagOf('{a2a:t:1')).toBe('{a2a:t:1');
  });

  it('a prefix without a tag spreads its keys over slots; with one it does not', () => {
    expect(clusterProblem({ 'redis-prefix': 'a2a-bridge:' })).toMatch(/redis-prefix must share one hash tag/);
    expect(clusterProblem({ 'redis-prefix': '{a2a-bridge}:' })).toBeUndefined();
    expect(clusterProblem({ 'push-stream': '{q}:push', 'push-retry-key': '{q}:retry', 'push-dead-stream': '{q}:dead' })).toBeUndefined();
    expect(clusterProblem({ 'push-stream': '{q}:push', 'push-retry-key': '{q}:retry', 'push-dead-stream': 'q:dead' })).toMatch(
      /push-stream, push-retry-key, push-dead-stream/,
    );
  });

  it('checks the Redis each store and the push queue use, and only those', () => {
    expect(redisKeyGroups(defaultConfig({}))).toEqual([]);
    const groups = redisKeyGroups(
      defaultConfig({ store: 'redis', 'push-notifications': true, 'push-queue': 'redis-streams', 'push-redis-url': 'redis://queue:6379' }),
    );
    expect(groups.map((group) => [group.url, Object.keys(group.names)])).toEqual([
      ['redis://127.0.0.1:6379', ['redis-prefix']],
      ['redis://queue:6379', ['push-stream', 'push-retry-key', 'push-dead-stream']],
    ]);
  });
});

describe('the start-up cluster check through Sentinel', () => {
  it('gives up at once when no sentinel answers, instead of holding the start', async () => {
    const url = `redis+sentinel://127.0.0.1:${CLOSED_PORT},127.0.0.1:${CLOSED_PORT}/m`;
    const started = Date.now();
    await expect(assertRedisKeysFitCluster(defaultConfig({ store: 'redis', 'redis-url': url }))).resolves.toBeUndefined();
    expect(Date.now() - started).toBeLessThan(5_000);
  }, 10_000);
});

/** A server that answers every command as a Redis in cluster mode answers INFO: the check's question, and ioredis' ready check. */
async function fakeClusterRedis(): Promise<{ url: string; close(): void }> {
  const info = '# Cluster\r\ncluster_enabled:1\r\n';
  const server = createServer((socket) => {
    socket.on('data', (chunk) => {
      // Each command is a RESP array ("*<count>" on a line of its own); pipelined ones come in one chunk.
      const commands = chunk
        .toString()
        .split('\r\n')
        .filter((line) => /^\*\d+$/.test(line)).length;
      for (let n = 0; n < commands; n++) socket.write(`$${info.length}\r\n${info}\r\n`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `redis://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}

describe('the start-up cluster check on a cluster', () => {
  it('starts its line with the setting that names the cluster, or REDIS_URL when that did', async () => {
    const cluster = await fakeClusterRedis();
    try {
      await expect(assertRedisKeysFitCluster(defaultConfig({ store: 'redis', 'redis-url': cluster.url }))).rejects.toThrow(
        /^redis-url: the Redis is a cluster, and redis-prefix must share one hash tag/,
      );
      const { config } = await loadConfig({ argv: [], env: { REDIS_URL: cluster.url, A2A_BRIDGE_STORE: 'redis' }, cwd: process.cwd() });
      await expect(assertRedisKeysFitCluster(config)).rejects.toThrow(
        /^REDIS_URL \(environment variable, read as redis-url\): the Redis is a cluster, and redis-prefix must share/,
      );
    } finally {
      cluster.close();
    }
  });
});
