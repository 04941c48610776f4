/**
 * A redis-server of a test's own that keeps its data across a SIGKILL (append-only file, fsynced on
 * every write): what a Redis with a volume is after a crash and restart, so the push configs stored
 * before the outage are there again once it is back. test/support/redis-server.ts comes back empty.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from '../../support/free-port.js';
import { waitUntil } from '../../support/wait-until.js';

export interface KeptRedis {
  url: string;
  /** Starts it (again, with what it had; nothing if it runs) and resolves once it answers PING. */
  start(): Promise<void>;
  /** Kills it (SIGKILL: an outage, not a shutdown); resolves once it exited. */
  stop(): Promise<void>;
  /** Kills it and removes its data. */
  remove(): Promise<void>;
}

export async function keptRedis(): Promise<KeptRedis> {
  const port = await freePort();
  const dir = await mkdtemp(join(tmpdir(), 'a2a-bridge-kept-redis-'));
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'yes', '--appendfsync', 'always', '--dir', dir];
  let server: ChildProcess | undefined;
  const running = () => server !== undefined && server.exitCode === null && server.signalCode === null;
  const kept: KeptRedis = {
    url: `redis://127.0.0.1:${port}`,
    async start() {
      // A second server on the port would fail to bind, and `stop` would then kill it instead of this one.
      if (running()) return;
      server = spawn('redis-server', args, { stdio: 'ignore' });
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
      if (!server || !running()) return;
      const exited = once(server, 'exit');
      server.kill('SIGKILL');
      await exited;
    },
    async remove() {
      await kept.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
  return kept;
}
