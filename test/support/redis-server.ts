/**
 * A redis-server of a test's own, on a free port, that the test can kill and start again on the same
 * port, or freeze and thaw: what an outage test needs and the shared Redis (REDIS_URL) must never be put through. Runs
 * without persistence, so a restart comes back empty, as a Redis without a volume does. With
 * `cluster`, it is a one-node Redis Cluster holding every slot: it refuses what a cluster refuses
 * (a command or script whose keys are in different slots: CROSSSLOT), with no second node to route to.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePort, type FreePortOptions } from './free-port.js';
import { launchRedis, launchRedisOnFreePort } from './redis-launch.js';
import { waitUntil } from './wait-until.js';

export interface OwnRedis {
  url: string;
  /** Starts it when it is down, on its port (PortTaken if another socket took it meanwhile); resolves once it answers PING. */
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
 * Resolves once it runs, on a port another socket did not take first (see onFreePort; `ports` picks them). `down`: it
 * does not run until `start()`, for a test of a Redis that comes up late; its port is then only free when picked.
 * `keepData`: an append-only file fsynced on every write, in a folder of its own, so a restart after a SIGKILL comes
 * back with what it had, as a Redis with a volume does.
 */
export async function ownRedis(
  options: { cluster?: boolean; keepData?: boolean; down?: boolean } = {},
  ports: FreePortOptions = {},
): Promise<OwnRedis> {
  let server: ChildProcess | undefined;
  const dir = options.keepData ? mkdtempSync(join(tmpdir(), 'a2a-bridge-kept-redis-')) : undefined;
  const persistence = dir ? ['--appendonly', 'yes', '--appendfsync', 'always', '--dir', dir] : ['--appendonly', 'no'];
  const nodesFile = (port: number) => join(tmpdir(), `a2a-bridge-test-nodes-${port}.conf`);
  /** Its arguments on `port`; a node (re)started with its old nodes file would already hold the slots it is to be given. */
  const args = (port: number) => {
    const listen = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', ...persistence];
    if (!options.cluster) return listen;
    rmSync(nodesFile(port), { force: true });
    return [...listen, '--cluster-enabled', 'yes', '--cluster-config-file', nodesFile(port)];
  };
  const running = () => server !== undefined && server.exitCode === null && server.signalCode === null;

  /** Once it listens: answers PING, and as a cluster node holds every slot. */
  async function ready(port: number): Promise<void> {
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
  }

  let port: number;
  if (options.down) port = await (ports.pickPort ?? freePort)();
  else ({ port, child: server } = await launchRedisOnFreePort(args, ports));
  const own: OwnRedis = {
    url: `redis://127.0.0.1:${port}`,
    async start() {
      // A second server on the port would fail to bind, and `stop` would then kill it instead of this one.
      if (running()) return;
      server = await launchRedis(port, args(port));
      await ready(port);
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
      if (options.cluster) rmSync(nodesFile(port), { force: true });
    },
  };
  if (server)
    await ready(port).catch(async (error: unknown) => {
      await own.remove();
      throw error;
    });
  return own;
}
