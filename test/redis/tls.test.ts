import { copyFile, readFile, rm } from 'node:fs/promises';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/schema.js';
import { redisClient } from '../../src/redis/connection.js';
import { redisEndpoint, redisTlsOptions } from '../../src/redis/tls.js';
import { TlsFilesError } from '../../src/http/tls.js';
import { makeCertificates, type Certificates } from '../support/certificates.js';

let certificates: Certificates;
beforeAll(async () => {
  certificates = await makeCertificates({ servers: ['redis'], clients: ['gateway', 'other'] });
});
afterAll(async () => {
  await certificates?.cleanup();
});

describe('redisTlsOptions: the URL says whether, redis-tls with what', () => {
  const connection = { servername: 'redis.internal' };

  it('gives a TLS URL the connection options, and a plain one nothing', () => {
    expect(redisTlsOptions('rediss://h:6380', connection, false)).toEqual({ tls: connection });
    expect(redisTlsOptions('rediss+sentinel://s:1/m', connection, false)).toEqual({ tls: connection });
    expect(redisTlsOptions('redis://h:6379', connection, true)).toEqual({});
    expect(redisTlsOptions('redis+sentinel://s:1/m', connection, true)).toEqual({});
  });

  it('gives the sentinels the same options with sentinels, and only through Sentinel', () => {
    expect(redisTlsOptions('rediss+sentinel://s:1/m', connection, true)).toEqual({ tls: connection, sentinelTLS: connection });
    expect(redisTlsOptions('rediss://h:6380', connection, true)).toEqual({ tls: connection });
  });
});

describe('redisEndpoint and the clients made from it', () => {
  const files = () => ({
    'ca-file': certificates.file('ca.pem'),
    'cert-file': certificates.file('gateway.pem'),
    'key-file': certificates.file('gateway.key'),
  });
  const config = (url: string, tls: Record<string, unknown>) => defaultConfig({ 'redis-url': url, 'redis-tls': tls });

  /** The options ioredis took for `client` (made with lazyConnect: it never connects). */
  const optionsOf = (client: Redis) => {
    client.disconnect();
    return client.options;
  };

  it('reads the files into the options of the data nodes and, with sentinels, of the sentinels', async () => {
    const [ca, cert, key] = await Promise.all(['ca.pem', 'gateway.pem', 'gateway.key'].map((name) => readFile(certificates.file(name))));
    const endpoint = redisEndpoint(config('rediss+sentinel://s:1/m', { ...files(), 'server-name': 'localhost', sentinels: true }));
    expect(endpoint.url).toBe('rediss+sentinel://s:1/m');
    expect(endpoint.tls).toEqual({ tls: { ca, cert, key, servername: 'localhost' }, sentinelTLS: { ca, cert, key, servername: 'localhost' } });
  });

  it('takes push-redis-url when given, redis-url otherwise', () => {
    const both = defaultConfig({
      'redis-url': 'rediss://a:1',
      'push-redis-url': 'redis://b:2',
      'redis-tls': { 'ca-file': certificates.file('ca.pem') },
    });
    expect(redisEndpoint(both).tls.tls).toHaveProperty('ca');
    expect(redisEndpoint(both, both['push-redis-url'])).toEqual({ url: 'redis://b:2', tls: {} });
  });

  it('lays the TLS options over what the URL says, for a data node and through Sentinel', () => {
    const direct = optionsOf(redisClient(redisEndpoint(config('rediss://:pw@127.0.0.1:6380', files())), { lazyConnect: true }));
    expect(direct).toMatchObject({ host: '127.0.0.1', port: 6380, password: 'pw', tls: { ca: expect.any(Buffer), cert: expect.any(Buffer) } });
    const sentinel = optionsOf(redisClient(redisEndpoint(config('rediss+sentinel://s:1/m', { ...files(), sentinels: true })), { lazyConnect: true }));
    expect(sentinel).toMatchObject({
      name: 'm',
      enableTLSForSentinelMode: true,
      tls: { key: expect.any(Buffer) },
      sentinelTLS: { ca: expect.any(Buffer) },
    });
    // A bare URL keeps ioredis's own TLS defaults.
    expect(optionsOf(redisClient('rediss://127.0.0.1:6380', { lazyConnect: true })).tls).toBe(true);
  });

  it('reads the files once: the connections made later need them no more', async () => {
    const copy = `${certificates.dir}/ca-copy.pem`;
    await copyFile(certificates.file('ca.pem'), copy);
    const once = config('rediss://h:1', { 'ca-file': copy });
    const first = redisEndpoint(once);
    await rm(copy);
    expect(redisEndpoint(once)).toEqual(first);
  });

  it('names the key of a file that cannot be read or used, never its path', () => {
    const missing = () => redisEndpoint(config('rediss://h:1', { 'ca-file': `${certificates.dir}/nope.pem` }));
    expect(missing).toThrow(TlsFilesError);
    expect(missing).toThrow(/^redis-tls\.ca-file cannot be read \(no such file\)$/);
    const mismatched = () =>
      redisEndpoint(config('rediss://h:1', { 'cert-file': certificates.file('gateway.pem'), 'key-file': certificates.file('other.key') }));
    expect(mismatched).toThrow(/^redis-tls files are not a usable PEM CA, certificate and key \(.+\)$/);
    expect(mismatched).not.toThrow(certificates.dir);
  });
});
