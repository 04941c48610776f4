/**
 * A redis-server of a test's own that asks for a password (`requirepass`), on a free port, without
 * persistence, and what the tests of refused credentials do to it: change its password under connected
 * clients (every connection dropped, so their reconnections offer the old one) and change it back.
 */
import { Redis } from 'ioredis';
import { launchRedisOnFreePort } from './redis-launch.js';
import { waitUntil } from './wait-until.js';

export interface PasswordRedis {
  port: number;
  /** `redis://` with `password` (none: without one). */
  url(password?: string): string;
  /** Runs `run` on a connection of its own that offers `password`. */
  admin(password: string, run: (redis: Redis) => Promise<unknown>): Promise<void>;
  /** The password becomes `to` and every client connection is dropped. */
  changePassword(from: string, to: string): Promise<void>;
  stop(): void;
}

export async function startPasswordRedis(password: string): Promise<PasswordRedis> {
  const args = (port: number) => ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--requirepass', password];
  const { port, child: server } = await launchRedisOnFreePort(args);
  const probe = new Redis({ port, password, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => 50 });
  probe.on('error', () => undefined);
  await waitUntil(async () => (await probe.ping().catch(() => '')) === 'PONG');
  probe.disconnect();

  async function admin(offered: string, run: (redis: Redis) => Promise<unknown>): Promise<void> {
    const redis = new Redis({ port, password: offered, maxRetriesPerRequest: 0, lazyConnect: true });
    redis.on('error', () => undefined);
    try {
      await redis.connect();
      await run(redis);
    } finally {
      redis.disconnect();
    }
  }

  return {
    port,
    url: (offered) => (offered === undefined ? `redis://127.0.0.1:${port}` : `redis://:${offered}@127.0.0.1:${port}`),
    admin,
    changePassword: (from, to) =>
      admin(from, async (redis) => {
        await redis.config('SET', 'requirepass', to);
        await redis.client('KILL', 'TYPE', 'normal');
      }),
    stop: () => void server.kill('SIGKILL'),
  };
}
