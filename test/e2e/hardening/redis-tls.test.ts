/**
 * A Redis reached over TLS, as a managed Redis is, with a private CA (what a cloud Redis hands out for
 * download): `rediss://` to the data node and `rediss+sentinel://` through a sentinel (reached over
 * plain TCP) that names a TLS-only primary. The gateway runs as `a2a-bridge serve` does, in a process of
 * its own, trusting the CA the way the image does (`NODE_EXTRA_CA_CERTS`, deploy/ca-certificates); what
 * a caller starts is read back from Redis over TLS.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFile, writeFile } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeCertificates, type Certificates } from '../../support/certificates.js';
import { freePort } from '../../support/free-port.js';
import { killChildren } from '../../support/kill-children.js';
import { root } from '../../support/run-cli.js';
import { sendMessageParams } from '../../support/v1-message.js';
import { waitUntil } from '../../support/wait-until.js';

const PASSWORD = 'tls-pass';
const entry = path.join(root, 'src/cli.ts');
const tsx = pathToFileURL(createRequire(entry).resolve('tsx')).href;

let certificates: Certificates;
let tlsPort: number;
let sentinelPort: number;
const children: ChildProcess[] = [];

function start(command: string, args: string[], env: NodeJS.ProcessEnv = {}): ChildProcess {
  const child = spawn(command, args, { stdio: 'ignore', env: { ...process.env, ...env } });
  children.push(child);
  return child;
}

/** A client of the TLS primary that trusts the test CA itself. */
async function tlsClient(): Promise<Redis> {
  const ca = await readFile(certificates.file('ca.pem'));
  const client = new Redis({ port: tlsPort, host: '127.0.0.1', password: PASSWORD, tls: { ca }, lazyConnect: true, maxRetriesPerRequest: 0 });
  client.on('error', () => undefined);
  return client;
}

beforeAll(async () => {
  certificates = await makeCertificates({ servers: ['redis'] });
  tlsPort = await freePort();
  sentinelPort = await freePort();
  const tls = ['--tls-cert-file', certificates.file('redis.pem'), '--tls-key-file', certificates.file('redis.key')];
  start('redis-server', [
    '--port',
    '0',
    '--tls-port',
    String(tlsPort),
    ...tls,
    '--tls-ca-cert-file',
    certificates.file('ca.pem'),
    '--tls-auth-clients',
    'no',
    '--bind',
    '127.0.0.1',
    '--requirepass',
    PASSWORD,
    '--save',
    '',
    '--appendonly',
    'no',
  ]);
  const client = await tlsClient();
  try {
    await waitUntil(async () => (await client.ping().catch(() => '')) === 'PONG', 10_000);
  } finally {
    client.disconnect();
  }
  // The sentinel answers clients over plain TCP and watches the primary over TLS.
  const conf = certificates.file('sentinel.conf');
  await writeFile(
    conf,
    [
      `port ${sentinelPort}`,
      'bind 127.0.0.1',
      `dir ${certificates.dir}`,
      'tls-replication yes',
      `tls-cert-file ${certificates.file('redis.pem')}`,
      `tls-key-file ${certificates.file('redis.key')}`,
      `tls-ca-cert-file ${certificates.file('ca.pem')}`,
      `sentinel monitor m 127.0.0.1 ${tlsPort} 1`,
      `sentinel auth-pass m ${PASSWORD}`,
      '',
    ].join('\n'),
  );
  start('redis-server', [conf, '--sentinel']);
  const sentinel = new Redis({ port: sentinelPort, lazyConnect: true, maxRetriesPerRequest: 0 });
  sentinel.on('error', () => undefined);
  try {
    await waitUntil(async () => {
      const fields = (await sentinel.call('SENTINEL', 'MASTER', 'm').catch(() => [])) as string[];
      return fields[fields.indexOf('flags') + 1] === 'master';
    }, 10_000);
  } finally {
    sentinel.disconnect();
  }
}, 30_000);

afterAll(async () => {
  await killChildren(children);
  await certificates?.cleanup();
});

/** `a2a-bridge serve` on `redisUrl` with the demo agent, trusting the test CA as the image trusts deploy/ca-certificates. */
async function serve(redisUrl: string, prefix: string): Promise<{ url: string; stop(): Promise<void> }> {
  const port = await freePort();
  const env = {
    NODE_EXTRA_CA_CERTS: certificates.file('ca.pem'),
    A2A_BRIDGE_PORT: String(port),
    A2A_BRIDGE_HOST: '127.0.0.1',
    A2A_BRIDGE_STORE: 'redis',
    A2A_BRIDGE_REDIS_URL: redisUrl,
    A2A_BRIDGE_REDIS_PREFIX: prefix,
    A2A_BRIDGE_LOG_LEVEL: 'silent',
  };
  const child = start(process.execPath, ['--import', tsx, entry, 'serve'], env);
  const url = `http://127.0.0.1:${port}`;
  await waitUntil(async () => (await fetch(`${url}/ready`).catch(() => undefined))?.status === 200, 15_000);
  return {
    url,
    async stop() {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    },
  };
}

async function recordedOverTls(url: string, prefix: string): Promise<void> {
  const answer = (await (
    await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: sendMessageParams('over TLS') }),
    })
  ).json()) as { result?: { task?: { id: string } } };
  const taskId = answer.result?.task?.id;
  expect(taskId).toEqual(expect.any(String));
  const client = await tlsClient();
  try {
    const keys = await client.keys(`${prefix}*`);
    expect(keys.some((key) => key.includes(taskId!))).toBe(true);
  } finally {
    client.disconnect();
  }
}

describe('Redis over TLS with a private CA', () => {
  it('rediss:// to the data node: the gateway is ready and records a task there', async () => {
    const prefix = `tls-${randomUUID()}:`;
    const gateway = await serve(`rediss://:${PASSWORD}@127.0.0.1:${tlsPort}`, prefix);
    try {
      await recordedOverTls(gateway.url, prefix);
    } finally {
      await gateway.stop();
    }
  }, 30_000);

  it('rediss+sentinel://: the sentinel over plain TCP names the TLS primary, and the task is recorded there', async () => {
    const prefix = `tls-sentinel-${randomUUID()}:`;
    const gateway = await serve(`rediss+sentinel://:${PASSWORD}@127.0.0.1:${sentinelPort}/m`, prefix);
    try {
      await recordedOverTls(gateway.url, prefix);
    } finally {
      await gateway.stop();
    }
  }, 30_000);
});
