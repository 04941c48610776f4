/**
 * Redis over TLS for redis-tls.test.ts: TLS-only redis-servers and sentinels of a test's own
 * (certificates from test/support/certificates.ts, started on free ports by redis-launch.ts), and the gateway run as
 * `a2a-bridge serve` on them, in a process of its own on a port it picks, with a check that what a caller starts is
 * recorded in a given Redis. The caller passes the list its children go to and kills them
 * (kill-children.ts).
 */
import type { ChildProcess } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { Redis } from 'ioredis';
import { expect } from 'vitest';
import type { Certificates } from '../../support/certificates.js';
import { launchRedisOnFreePort } from '../../support/redis-launch.js';
import { serveCli } from '../../support/run-cli.js';
import { sendMessageParams } from '../../support/v1-message.js';
import { waitUntil } from '../../support/wait-until.js';

/** `requirepass` of every data node here. */
export const TLS_REDIS_PASSWORD = 'tls-pass';
/** The master name the sentinels watch. */
export const MASTER = 'm';

/**
 * A client over TLS that trusts the test CA, presenting the `client` certificate when named, with
 * `password` when given (the data nodes': TLS_REDIS_PASSWORD); the caller disconnects it.
 */
export async function tlsClient(certificates: Certificates, port: number, options: { client?: string; password?: string } = {}): Promise<Redis> {
  const names = ['ca.pem', ...(options.client ? [`${options.client}.pem`, `${options.client}.key`] : [])];
  const [ca, cert, key] = await Promise.all(names.map((name) => readFile(certificates.file(name))));
  const client = new Redis({
    port,
    host: '127.0.0.1',
    ...(options.password ? { password: options.password } : {}),
    tls: { ca, ...(cert && key ? { cert, key } : {}) },
    lazyConnect: true,
    maxRetriesPerRequest: 0,
  });
  client.on('error', () => undefined);
  return client;
}

/** A client of a TLS data node here (see tlsClient). */
export const dataNodeClient = (certificates: Certificates, port: number, client?: string): Promise<Redis> =>
  tlsClient(certificates, port, { password: TLS_REDIS_PASSWORD, ...(client ? { client } : {}) });

/**
 * redis-server with the settings `lines(port)` gives, on a free port, in a config file of its own (a sentinel rewrites
 * it); resolves to that port once it listens.
 */
async function startRedisServer(
  children: ChildProcess[],
  certificates: Certificates,
  lines: (port: number) => string[],
  args: string[] = [],
): Promise<number> {
  const { port, child } = await launchRedisOnFreePort(async (port) => {
    const conf = certificates.file(`redis-${port}.conf`);
    await writeFile(conf, [...lines(port), 'bind 127.0.0.1', `dir ${certificates.dir}`, ''].join('\n'));
    return [conf, ...args];
  });
  children.push(child);
  return port;
}

async function waitFor(client: Promise<Redis>, check: (client: Redis) => Promise<boolean>): Promise<void> {
  const connected = await client;
  try {
    await waitUntil(() => check(connected), 10_000);
  } finally {
    connected.disconnect();
  }
}

/** The server side of TLS: the `redis` certificate, and the CA a client certificate must be signed by. */
const serverTls = (certificates: Certificates) => [
  `tls-cert-file ${certificates.file('redis.pem')}`,
  `tls-key-file ${certificates.file('redis.key')}`,
  `tls-ca-cert-file ${certificates.file('ca.pem')}`,
];

/**
 * A TLS-only data node (`port 0`) with a password and nothing persisted. `clientAuth`: it refuses a
 * client without a certificate of the test CA (`tls-auth-clients yes`), which `client` then names for
 * the readiness check. Resolves to its port once it answers.
 */
export async function startTlsRedis(
  children: ChildProcess[],
  certificates: Certificates,
  options: { clientAuth: boolean; client?: string },
): Promise<number> {
  const port = await startRedisServer(children, certificates, (port) => [
    'port 0',
    `tls-port ${port}`,
    ...serverTls(certificates),
    `tls-auth-clients ${options.clientAuth ? 'yes' : 'no'}`,
    `requirepass ${TLS_REDIS_PASSWORD}`,
    'save ""',
    'appendonly no',
  ]);
  await waitFor(dataNodeClient(certificates, port, options.client), async (client) => (await client.ping()) === 'PONG');
  return port;
}

/**
 * A sentinel watching the TLS data node at `primaryPort` as master `m`, over TLS (presenting the
 * `client` certificate when named, for a primary that requires one). Clients reach it over plain TCP,
 * or with `tlsOnly` over TLS only, with a certificate of the test CA. Resolves to its port once it
 * names the primary.
 */
export async function startSentinel(
  children: ChildProcess[],
  certificates: Certificates,
  options: { primaryPort: number; tlsOnly: boolean; client?: string },
): Promise<number> {
  const client = options.client
    ? [`tls-client-cert-file ${certificates.file(`${options.client}.pem`)}`, `tls-client-key-file ${certificates.file(`${options.client}.key`)}`]
    : [];
  const listen = (port: number) => (options.tlsOnly ? ['port 0', `tls-port ${port}`, 'tls-auth-clients yes'] : [`port ${port}`]);
  const port = await startRedisServer(
    children,
    certificates,
    (port) => [
      ...listen(port),
      'tls-replication yes',
      ...serverTls(certificates),
      ...client,
      `sentinel monitor ${MASTER} 127.0.0.1 ${options.primaryPort} 1`,
      `sentinel auth-pass ${MASTER} ${TLS_REDIS_PASSWORD}`,
    ],
    ['--sentinel'],
  );
  const sentinel = options.tlsOnly
    ? tlsClient(certificates, port, options.client ? { client: options.client } : {})
    : Promise.resolve(new Redis({ port, lazyConnect: true, maxRetriesPerRequest: 0 }).on('error', () => undefined));
  await waitFor(sentinel, async (connected) => {
    const fields = (await connected.call('SENTINEL', 'MASTER', MASTER)) as string[];
    return fields[fields.indexOf('flags') + 1] === 'master';
  });
  return port;
}

export interface ServedGateway {
  url: string;
  stop(): Promise<void>;
}

/**
 * `a2a-bridge serve` with the demo agent and `store: redis` on `redisUrl`; `env` adds settings (e.g.
 * `A2A_BRIDGE_REDIS_TLS__CA_FILE`, `NODE_EXTRA_CA_CERTS`). No CA is trusted beyond the public roots
 * unless `env` says so. Resolves once `/ready` answers 200: the gateway reaches its Redis.
 */
export async function serveOnRedis(children: ChildProcess[], redisUrl: string, prefix: string, env: NodeJS.ProcessEnv = {}): Promise<ServedGateway> {
  const settings = {
    A2A_BRIDGE_PORT: '0',
    A2A_BRIDGE_HOST: '127.0.0.1',
    A2A_BRIDGE_STORE: 'redis',
    A2A_BRIDGE_REDIS_URL: redisUrl,
    A2A_BRIDGE_REDIS_PREFIX: prefix,
    // Its "listening" line names the port it took.
    A2A_BRIDGE_LOG_LEVEL: 'info',
    // Only when `env` names one: not this process's.
    NODE_EXTRA_CA_CERTS: undefined,
  };
  const { child, url, exited } = await serveCli([], { env: { ...settings, ...env }, track: children });
  // 3.5 s alone; beside the CLI's files (a dozen node processes compiling through tsx) it took past 15 s.
  await waitUntil(async () => (await fetch(`${url}/ready`).catch(() => undefined))?.status === 200, 45_000);
  return {
    url,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** A caller starts a task at the gateway, and `redis` (a client of the Redis it should be in) holds it under `prefix`. */
export async function expectTaskRecorded(gatewayUrl: string, redis: Promise<Redis>, prefix: string): Promise<void> {
  const answer = (await (
    await fetch(gatewayUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: sendMessageParams('over TLS') }),
    })
  ).json()) as { result?: { task?: { id: string } } };
  const taskId = answer.result?.task?.id;
  expect(taskId).toEqual(expect.any(String));
  const client = await redis;
  try {
    // Polled, not read once: a loaded CI run read no key of the task right after its answer once, the cause not found
    // (a write past `redis-command-timeout-ms` lands late and is only logged); a task never written still fails it.
    await expect.poll(async () => (await client.keys(`${prefix}*`)).some((key) => key.includes(taskId!))).toBe(true);
  } finally {
    client.disconnect();
  }
}
