import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway } from '../../src/app.js';
import { ConfigError } from '../../src/config/config-error.js';
import { loadConfig } from '../../src/config/load.js';
import { defaultConfig } from '../../src/config/schema.js';
import { createLogger } from '../../src/log.js';
import { assertRedisTakesCredentials } from '../../src/redis/credentials-check.js';
import { CLOSED_PORT } from '../support/free-port.js';
import { startTestGateway } from '../support/gateway.js';
import { startPasswordRedis, type PasswordRedis } from '../support/password-redis.js';

const PASSWORD = 'the-right-redis-password-3f1a';
const WRONG = 'a-wrong-redis-password-77c2';

describe('a Redis that refuses the configured credentials', () => {
  let server: PasswordRedis;
  let port: number;

  beforeAll(async () => {
    server = await startPasswordRedis(PASSWORD);
    port = server.port;
  });
  afterAll(() => server.stop());

  const check = (settings: Parameters<typeof defaultConfig>[0]) => assertRedisTakesCredentials(defaultConfig(settings));

  it('stops the start, naming the setting and what Redis said, never the password', async () => {
    const refusal = await check({ store: 'redis', 'redis-url': `redis://:${WRONG}@127.0.0.1:${port}` }).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(ConfigError);
    expect((refusal as Error).message).toMatch(/^redis-url: the Redis refuses the configured user or password \(WRONGPASS/);
    expect((refusal as Error).message).not.toContain(WRONG);
  });

  it('stops it when no password is configured for a Redis that needs one', async () => {
    await expect(check({ store: 'redis', 'redis-url': `redis://127.0.0.1:${port}` })).rejects.toThrow(/redis-url: .*\(NOAUTH/);
  });

  it('names push-redis-url when the push queue is the one refused', async () => {
    const settings = { 'push-notifications': true, 'push-queue': 'redis-streams', 'push-redis-url': `redis://:${WRONG}@127.0.0.1:${port}` } as const;
    await expect(check(settings)).rejects.toThrow(/^push-redis-url: .*WRONGPASS/);
  });

  it('lets the start go on with the right password, and when the Redis cannot be reached now', async () => {
    await expect(check({ store: 'redis', 'redis-url': `redis://:${PASSWORD}@127.0.0.1:${port}` })).resolves.toBeUndefined();
    await expect(check({ store: 'redis', 'redis-url': `redis://:${WRONG}@127.0.0.1:${CLOSED_PORT}` })).resolves.toBeUndefined();
  });

  it('is what a gateway with a wrong password meets: it does not start', async () => {
    const started = startTestGateway({ store: 'redis', 'redis-url': `redis://:${WRONG}@127.0.0.1:${port}`, 'redis-prefix': `cred-${process.pid}:` });
    await expect(started).rejects.toThrow(/redis-url: the Redis refuses/);
    await expect(started).rejects.not.toThrow(WRONG);
  });

  /** A gateway started as the CLI starts it: the config loaded from `env`, then started. */
  async function startFromEnv(env: NodeJS.ProcessEnv): Promise<unknown> {
    const { config } = await loadConfig({ argv: ['--port', '0'], env: { A2A_BRIDGE_STORE: 'redis', ...env }, cwd: process.cwd() });
    return startGateway(config, createLogger('silent')).then(
      async (running) => running.close(),
      (error: unknown) => error,
    );
  }

  it('names REDIS_URL, not redis-url, when that variable gave the URL: the operator looks for what they set', async () => {
    const refusal = await startFromEnv({ REDIS_URL: `redis://:${WRONG}@127.0.0.1:${port}`, A2A_BRIDGE_REDIS_PREFIX: `cred-env-${process.pid}:` });
    expect((refusal as Error).message).toMatch(
      /^REDIS_URL \(environment variable, read as redis-url\): the Redis refuses the configured user or password \(WRONGPASS/,
    );
    expect((refusal as Error).message).not.toContain(WRONG);
    const prefixed = await startFromEnv({ A2A_BRIDGE_REDIS_URL: `redis://:${WRONG}@127.0.0.1:${port}`, REDIS_URL: 'redis://127.0.0.1:1' });
    expect((prefixed as Error).message).toMatch(/^redis-url: the Redis refuses/);
  });
});

describe('a Redis address that takes the connection and never answers', () => {
  it('does not hold the start: the check gives up within a few seconds and the start goes on', async () => {
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as { port: number };
    try {
      const started = Date.now();
      await expect(assertRedisTakesCredentials(defaultConfig({ store: 'redis', 'redis-url': `redis://127.0.0.1:${port}` }))).resolves.toBeUndefined();
      expect(Date.now() - started).toBeLessThan(8_000);
    } finally {
      silent.close();
    }
  }, 15_000);
});
