/**
 * A Redis under Sentinel of a test's own: a primary, one replica and one sentinel watching them as
 * master `m`, each a redis-server on a free port, in a temporary folder (the sentinel rewrites its
 * config file there). The data nodes and the sentinel have passwords, so a test also proves which
 * password goes where. Nothing persists: the replica's full sync writes its RDB into the folder.
 * `stop()` kills all three and removes the folder; a run that dies first kills them on exit.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { killChildren } from './kill-children.js';
import { launchRedisOnFreePort } from './redis-launch.js';
import { waitUntil } from './wait-until.js';

export const MASTER_NAME = 'm';
/** `requirepass` of both data nodes (and `masterauth`, so either can follow the other). */
export const DATA_PASSWORD = 'data-pass';
/** `requirepass` of the sentinel. */
export const SENTINEL_PASSWORD = 'sentinel-pass';

export interface OwnSentinel {
  /** `redis+sentinel://:<data password>@127.0.0.1:<sentinel>/m?sentinelPassword=<sentinel password>` */
  url: string;
  sentinelPort: number;
  /** The data nodes' ports: the primary first (as started; a failover swaps their roles, not this order). */
  primaryPort: number;
  replicaPort: number;
  /** A plain client of one data node (with its password); the caller disconnects it. */
  direct(port: number): Redis;
  /** The port of the data node the sentinel names as primary now. */
  currentPrimary(): Promise<number>;
  /** `SENTINEL FAILOVER m`, then waits until the sentinel switched to the other node; resolves to its port. */
  failover(timeoutMs?: number): Promise<number>;
  stop(): Promise<void>;
}

const SILENT = { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => 50 };

export async function ownSentinel(): Promise<OwnSentinel> {
  const dir = await mkdtemp(path.join(tmpdir(), 'a2a-bridge-sentinel-'));
  const children: ChildProcess[] = [];
  const killAll = () => children.forEach((child) => child.kill('SIGKILL'));
  process.once('exit', killAll);

  const stop = async () => {
    process.removeListener('exit', killAll);
    await killChildren(children);
    await rm(dir, { recursive: true, force: true });
  };

  /** A redis-server that `args(port)` configures, on a free port; resolves to that port once it listens. */
  const start = async (args: (port: number) => string[] | Promise<string[]>) => {
    const { port, child } = await launchRedisOnFreePort(args);
    children.push(child);
    return port;
  };
  const dataNode = (port: number, extra: string[] = []) =>
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--dbfilename', `${port}.rdb`].concat(
      ['--requirepass', DATA_PASSWORD, '--masterauth', DATA_PASSWORD],
      extra,
    );
  const direct = (port: number) => new Redis({ port, password: DATA_PASSWORD, ...SILENT });
  const sentinelClient = (port: number) => new Redis({ port, password: SENTINEL_PASSWORD, ...SILENT });

  /** Runs `check` with `client`, which is closed afterwards. */
  async function asking<T>(client: Redis, check: (client: Redis) => Promise<T>): Promise<T> {
    client.on('error', () => undefined);
    try {
      return await check(client);
    } finally {
      client.disconnect();
    }
  }

  try {
    const primaryPort = await start((port) => dataNode(port));
    const replicaPort = await start((port) => dataNode(port, ['--replicaof', '127.0.0.1', String(primaryPort)]));
    await asking(direct(replicaPort), (client) =>
      waitUntil(async () => (await client.info('replication')).includes('master_link_status:up'), 10_000),
    );

    const conf = path.join(dir, 'sentinel.conf');
    const sentinelPort = await start(async (port) => {
      await writeFile(
        conf,
        [
          `port ${port}`,
          'bind 127.0.0.1',
          `dir ${dir}`,
          `requirepass ${SENTINEL_PASSWORD}`,
          `sentinel monitor ${MASTER_NAME} 127.0.0.1 ${primaryPort} 1`,
          `sentinel auth-pass ${MASTER_NAME} ${DATA_PASSWORD}`,
          `sentinel down-after-milliseconds ${MASTER_NAME} 1000`,
          `sentinel failover-timeout ${MASTER_NAME} 5000`,
          '',
        ].join('\n'),
      );
      return [conf, '--sentinel'];
    });

    const primaryOf = async (client: Redis) => {
      const [, port] = (await client.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', MASTER_NAME)) as [string, string];
      return Number(port);
    };
    const currentPrimary = () => asking(sentinelClient(sentinelPort), primaryOf);
    await asking(sentinelClient(sentinelPort), (client) => waitUntil(async () => (await primaryOf(client)) === primaryPort, 10_000));
    return {
      url: `redis+sentinel://:${DATA_PASSWORD}@127.0.0.1:${sentinelPort}/${MASTER_NAME}?sentinelPassword=${SENTINEL_PASSWORD}`,
      sentinelPort,
      primaryPort,
      replicaPort,
      direct,
      currentPrimary,
      failover: (timeoutMs = 20_000) =>
        asking(sentinelClient(sentinelPort), async (client) => {
          const before = await primaryOf(client);
          // Refused (NOGOODSLAVE) until the sentinel has seen the replica healthy, through the primary's
          // INFO, a few seconds after it started: asked again until it takes it.
          await waitUntil(async () => (await client.call('SENTINEL', 'FAILOVER', MASTER_NAME)) === 'OK', timeoutMs);
          // GET-MASTER-ADDR-BY-NAME names the new primary while the failover still runs; the master's
          // own address changes with +switch-master, the event clients follow.
          const switched = async () => {
            const fields = (await client.call('SENTINEL', 'MASTER', MASTER_NAME)) as string[];
            return Number(fields[fields.indexOf('port') + 1]);
          };
          await waitUntil(async () => (await switched()) !== before, timeoutMs);
          return switched();
        }),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
