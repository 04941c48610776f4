/**
 * A Redis reached over TLS, as a managed Redis is, with a private CA (what a cloud Redis hands out for
 * download). Real redis-servers: a TLS-only data node, one that also requires a client certificate
 * (`tls-auth-clients yes`), a sentinel over plain TCP naming the first, and a TLS-only sentinel that
 * requires a client certificate and names the second. The gateway runs as `a2a-bridge serve` does, in
 * a process of its own, trusting the CA either the way the image does (`NODE_EXTRA_CA_CERTS`,
 * deploy/ca-certificates) or through `redis-tls`; what a caller starts is read back from the Redis it
 * should be in. The connections the gateway makes are also tried one by one, to see the refusal each
 * missing `redis-tls` setting causes.
 */
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import type { RedisOptions } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../../src/config/schema.js';
import { redisClient } from '../../../src/redis/connection.js';
import { redisEndpoint } from '../../../src/redis/tls.js';
import { makeCertificates, type Certificates } from '../../support/certificates.js';
import { killChildren } from '../../support/kill-children.js';
import { dataNodeClient, expectTaskRecorded, MASTER, serveOnRedis, startSentinel, startTlsRedis, TLS_REDIS_PASSWORD } from './redis-tls-servers.js';
import { cli, stderrLines } from '../../support/run-cli.js';

let certificates: Certificates;
/** TLS only, any client. */
let tlsPort: number;
/** A sentinel over plain TCP watching the TLS-only node. */
let plainSentinelPort: number;
/** TLS only, clients need a certificate of the test CA. */
let mutualPort: number;
/** A sentinel over TLS only (clients need a certificate) watching the mutual-TLS node. */
let sentinelPort: number;
const children: ChildProcess[] = [];

beforeAll(async () => {
  certificates = await makeCertificates({ servers: ['redis'], clients: ['gateway', 'sentinel'] });
  tlsPort = await startTlsRedis(children, certificates, { clientAuth: false });
  plainSentinelPort = await startSentinel(children, certificates, { primaryPort: tlsPort, tlsOnly: false });
  mutualPort = await startTlsRedis(children, certificates, { clientAuth: true, client: 'gateway' });
  sentinelPort = await startSentinel(children, certificates, { primaryPort: mutualPort, tlsOnly: true, client: 'sentinel' });
}, 60_000);

afterAll(async () => {
  await killChildren(children);
  await certificates?.cleanup();
});

const dataNode = (port: number) => `rediss://:${TLS_REDIS_PASSWORD}@127.0.0.1:${port}`;
const throughSentinel = (port = sentinelPort) => `rediss+sentinel://:${TLS_REDIS_PASSWORD}@127.0.0.1:${port}/${MASTER}`;
/** The test CA, and with `client` the gateway's certificate, as environment settings. */
const tlsEnv = (client = false) => ({
  A2A_BRIDGE_REDIS_TLS__CA_FILE: certificates.file('ca.pem'),
  ...(client
    ? { A2A_BRIDGE_REDIS_TLS__CERT_FILE: certificates.file('gateway.pem'), A2A_BRIDGE_REDIS_TLS__KEY_FILE: certificates.file('gateway.key') }
    : {}),
});

async function recordedThrough(redisUrl: string, env: NodeJS.ProcessEnv, port: number, client?: string): Promise<void> {
  const prefix = `tls-${randomUUID()}:`;
  const gateway = await serveOnRedis(children, redisUrl, prefix, env);
  try {
    await expectTaskRecorded(gateway.url, dataNodeClient(certificates, port, client), prefix);
  } finally {
    await gateway.stop();
  }
}

describe('NODE_EXTRA_CA_CERTS trusts the CA, as in the image', () => {
  const trusted = () => ({ NODE_EXTRA_CA_CERTS: certificates.file('ca.pem') });

  it('rediss:// to the data node: the gateway is ready and records a task there', async () => {
    await recordedThrough(dataNode(tlsPort), trusted(), tlsPort);
  }, 60_000);

  it('rediss+sentinel://: the sentinel over plain TCP names the TLS primary, and the task is recorded there', async () => {
    await recordedThrough(throughSentinel(plainSentinelPort), trusted(), tlsPort);
  }, 60_000);
});

describe('redis-tls in a running gateway: a task a caller starts is recorded in that Redis', () => {
  it('ca-file trusts a private CA without NODE_EXTRA_CA_CERTS; server-name names the certificate', async () => {
    await recordedThrough(dataNode(tlsPort), { ...tlsEnv(), A2A_BRIDGE_REDIS_TLS__SERVER_NAME: 'localhost' }, tlsPort);
  }, 60_000);

  it('cert-file and key-file: a Redis that requires a client certificate takes the gateway', async () => {
    await recordedThrough(dataNode(mutualPort), tlsEnv(true), mutualPort, 'gateway');
  }, 60_000);

  it('sentinels: true reaches a TLS-only sentinel with the same files, and the primary it names', async () => {
    await recordedThrough(throughSentinel(), { ...tlsEnv(true), A2A_BRIDGE_REDIS_TLS__SENTINELS: 'true' }, mutualPort, 'gateway');
  }, 60_000);
});

/** Whether a connection the gateway would make under these `redis-tls` settings gets an answer. */
async function answers(redisUrl: string, tls: Record<string, unknown>): Promise<boolean> {
  const once: RedisOptions = { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, sentinelRetryStrategy: () => null };
  const client = redisClient(redisEndpoint(defaultConfig({ 'redis-url': redisUrl, 'redis-tls': tls })), once);
  client.on('error', () => undefined);
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

describe('redis-tls on one connection: what each setting is needed for', () => {
  const ca = () => ({ 'ca-file': certificates.file('ca.pem') });
  const withCertificate = () => ({ ...ca(), 'cert-file': certificates.file('gateway.pem'), 'key-file': certificates.file('gateway.key') });

  it('without ca-file the private CA is not trusted', async () => {
    expect(await answers(dataNode(tlsPort), ca())).toBe(true);
    expect(await answers(dataNode(tlsPort), { 'server-name': 'localhost' })).toBe(false);
  });

  it('a server-name the certificate does not carry is refused', async () => {
    expect(await answers(dataNode(tlsPort), { ...ca(), 'server-name': 'localhost' })).toBe(true);
    expect(await answers(dataNode(tlsPort), { ...ca(), 'server-name': 'elsewhere.example' })).toBe(false);
  });

  it('without cert-file and key-file a Redis that requires a client certificate refuses the gateway', async () => {
    expect(await answers(dataNode(mutualPort), withCertificate())).toBe(true);
    expect(await answers(dataNode(mutualPort), ca())).toBe(false);
  });

  it('without sentinels the TLS-only sentinel is not reached', async () => {
    expect(await answers(throughSentinel(), { ...withCertificate(), sentinels: true })).toBe(true);
    expect(await answers(throughSentinel(), withCertificate())).toBe(false);
  });
});

describe('redis-tls start-up errors: exit 2, one line naming the key, never the path', { timeout: 60_000 }, () => {
  const serve = (env: NodeJS.ProcessEnv) =>
    cli(['serve', '--port', '0'], { A2A_BRIDGE_STORE: 'redis', A2A_BRIDGE_REDIS_URL: dataNode(tlsPort), ...env });

  it('an unreadable file, and a certificate with a key that is not its own', async () => {
    const missing = await serve({ A2A_BRIDGE_REDIS_TLS__CA_FILE: certificates.file('nope.pem') });
    expect(missing.code).toBe(2);
    expect(stderrLines(missing)).toEqual(['a2a-bridge: cannot start: redis-tls.ca-file cannot be read (no such file)']);
    const mismatched = await serve({
      A2A_BRIDGE_REDIS_TLS__CERT_FILE: certificates.file('gateway.pem'),
      A2A_BRIDGE_REDIS_TLS__KEY_FILE: certificates.file('sentinel.key'),
    });
    expect(mismatched.code).toBe(2);
    expect(stderrLines(mismatched)).toEqual([
      expect.stringMatching(/^a2a-bridge: cannot start: redis-tls files are not a usable PEM CA, certificate and key \(.*\)$/),
    ]);
    expect(missing.stderr + mismatched.stderr).not.toContain(certificates.dir);
  });

  it('redis-tls with a plain redis:// URL is a configuration error, not ignored', async () => {
    const run = await cli(['check-config'], {
      A2A_BRIDGE_REDIS_URL: 'redis://127.0.0.1:6379',
      A2A_BRIDGE_REDIS_TLS__CA_FILE: certificates.file('ca.pem'),
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/redis-tls: needs a rediss:\/\/ or rediss\+sentinel:\/\/ redis-url or push-redis-url/);
  });
});
