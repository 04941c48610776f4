/**
 * A redis-server of a test's own, on a free port, that the test can kill and start again on the same
 * port: what an outage test needs and the shared Redis (REDIS_URL) must never be put through. Runs
 * without persistence, so a restart comes back empty, as a Redis without a volume does.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import { waitUntil } from './wait-until.js';

export interface OwnRedis {
  url: string;
  /** Starts it (again) and resolves once it answers PING. */
  start(): Promise<void>;
  /** Kills it (SIGKILL: an outage, not a shutdown); resolves once it exited. */
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export async function ownRedis(): Promise<OwnRedis> {
  const port = await freePort();
  let server: ChildProcess | undefined;
  return {
    url: `redis://127.0.0.1:${port}`,
    async start() {
      server = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
      server.once('error', (error) => {
        throw new Error(`this test runs redis-server itself: ${error.message}`);
      });
      const probe = new Redis({ port, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => 50 });
      probe.on('error', () => undefined);
      try {
        await waitUntil(async () => (await probe.ping()) === 'PONG');
      } finally {
        probe.disconnect();
      }
    },
    async stop() {
      if (!server || server.exitCode !== null) return;
      const exited = once(server, 'exit');
      server.kill('SIGKILL');
      await exited;
    },
  };
}
