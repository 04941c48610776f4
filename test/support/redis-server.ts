/**
 * A redis-server of a test's own, on a free port, that the test can kill and start again on the same
 * port, or freeze and thaw: what an outage test needs and the shared Redis (REDIS_URL) must never be put through. Runs
 * without persistence, so a restart comes back empty, as a Redis without a volume does. With
 * `cluster`, it is a one-node Redis Cluster holding every slot: it refuses what a cluster refuses
 * (a command or script whose keys are in different slots: CROSSSLOT), with no second node to route to.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from './free-port.js';
import { waitUntil } from './wait-until.js';

export interface OwnRedis {
  url: string;
  /** Starts it (again) and resolves once it answers PING. */
  start(): Promise<void>;
  /** Kills it (SIGKILL: an outage, not a shutdown); resolves once it exited. */
  stop(): Promise<void>;
  /** Freezes it (SIGSTOP): its connections stay open and nothing is answered, as behind a network that drops packets. */
  freeze(): void;
  /** Lets a frozen server go on (SIGCONT). */
  thaw(): void;
  /** Kills it and removes what it kept (with `keepData`). */
  remove(): Promise<void>;
}

/**
 * `keepData`: an append-only file fsynced on every write, in a folder of its own, so a restart after a
 * SIGKILL comes back with what it had, as a Redis with a volume does.
 */
export async function ownRedis(options: { cluster?: boolean; keepData?: boolean } = {}): Promise<OwnRedis> {
  const port = await freePort();
  let server: ChildProcess | undefined;
  const dir = options.keepData ? mkdtempSync(join(tmpdir(), 'a2a-bridge-kept-redis-')) : undefined;
  const persistence = dir ? ['--appendonly', 'yes', '--appendfsync', 'always', '--dir', dir] : ['--appendonly', 'no'];
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', ...persistence];
  const running = () => server !== undefined && server.exitCode === null && server.signalCode === null;
  const nodesFile = join(tmpdir(), `a2a-bridge-test-nodes-${port}.conf`);
  if (options.cluster) args.push('--cluster-enabled', 'yes', '--cluster-config-file', nodesFile);
  const own: OwnRedis = {
    url: `redis://127.0.0.1:${port}`,
    async start() {
      // A second server on the port would fail to bind, and `stop` would then kill it instead of this one.
      if (running()) return;
      // A node restarted with its old nodes file would already hold the slots it is about to be given.
      rmSync(nodesFile, { force: true });
      server = spawn('redis-server', args, { stdio: 'ignore' });
      server.once('error', (error) => {
        throw new Error(`this test runs redis-server itself: ${error.message}`);
      });
      const probe = new Redis({ port, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => 50 });
      probe.on('error', () => undefined);
      try {
        await waitUntil(async () => (await probe.ping()) === 'PONG');
        if (options.cluster) {
          await probe.call('CLUSTER', 'ADDSLOTSRANGE', '0', '16383');
          await waitUntil(async () => String(await probe.call('CLUSTER', 'INFO')).includes('cluster_state:ok'));
        }
      } finally {
        probe.disconnect();
      }
    },
    freeze: () => void server?.kill('SIGSTOP'),
    thaw: () => void server?.kill('SIGCONT'),
    async stop() {
      // Killed, it has a signalCode and no exitCode: stopping it twice must not wait for an exit that came already.
      if (!server || !running()) return;
      const exited = once(server, 'exit');
      server.kill('SIGKILL');
      await exited;
    },
    async remove() {
      await own.stop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  };
  return own;
}
