import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/load.js';

const load = (env: NodeJS.ProcessEnv) => loadConfig({ argv: [], env, cwd: '/' });

async function problem(env: NodeJS.ProcessEnv): Promise<string> {
  const error = await load(env).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConfigError);
  return (error as ConfigError).message;
}

const TLS_URL = { A2A_BRIDGE_REDIS_URL: 'rediss://redis.internal:6380' };

describe('redis-tls', () => {
  it('is off by default: no files, the sentinels over plain TCP', async () => {
    expect((await load({})).config['redis-tls']).toEqual({ sentinels: false });
  });

  it('is set from the environment like the other nested keys', async () => {
    const { config } = await load({
      A2A_BRIDGE_REDIS_URL: 'rediss+sentinel://s:26379/m',
      A2A_BRIDGE_REDIS_TLS__CA_FILE: '/etc/redis/ca.pem',
      A2A_BRIDGE_REDIS_TLS__CERT_FILE: '/etc/redis/client.pem',
      A2A_BRIDGE_REDIS_TLS__KEY_FILE: '/etc/redis/client.key',
      A2A_BRIDGE_REDIS_TLS__SENTINELS: 'true',
      A2A_BRIDGE_REDIS_TLS__SERVER_NAME: 'redis.internal',
    });
    expect(config['redis-tls']).toEqual({
      'ca-file': '/etc/redis/ca.pem',
      'cert-file': '/etc/redis/client.pem',
      'key-file': '/etc/redis/client.key',
      sentinels: true,
      'server-name': 'redis.internal',
    });
  });

  it('needs a TLS URL to act on: with only plain ones it is refused, not ignored', async () => {
    expect(await problem({ A2A_BRIDGE_REDIS_TLS__CA_FILE: '/ca.pem' })).toMatch(
      /redis-tls: needs a rediss:\/\/ or rediss\+sentinel:\/\/ redis-url or push-redis-url/,
    );
    expect(await problem({ A2A_BRIDGE_REDIS_URL: 'redis+sentinel://s/m', A2A_BRIDGE_REDIS_TLS__SERVER_NAME: 'r' })).toMatch(
      /redis-tls: needs a rediss/,
    );
    // Either URL will do: the files go to the TLS one.
    const pushOverTls = { A2A_BRIDGE_PUSH_REDIS_URL: 'rediss://queue:6380', A2A_BRIDGE_REDIS_TLS__CA_FILE: '/ca.pem' };
    expect((await load(pushOverTls)).config['redis-tls']['ca-file']).toBe('/ca.pem');
  });

  it('sentinels needs a rediss+sentinel:// URL', async () => {
    expect(await problem({ ...TLS_URL, A2A_BRIDGE_REDIS_TLS__SENTINELS: 'true' })).toMatch(
      /redis-tls\.sentinels: needs a rediss\+sentinel:\/\/ redis-url or push-redis-url \(from A2A_BRIDGE_REDIS_TLS__SENTINELS\)/,
    );
  });

  it('takes a certificate only with its key, and a host name as server-name', async () => {
    expect(await problem({ ...TLS_URL, A2A_BRIDGE_REDIS_TLS__CERT_FILE: '/c.pem' })).toMatch(
      /redis-tls\.cert-file and redis-tls\.key-file go together/,
    );
    expect(await problem({ ...TLS_URL, A2A_BRIDGE_REDIS_TLS__SERVER_NAME: '10.0.0.7' })).toMatch(
      /redis-tls\.server-name: must be a host name, not an address/,
    );
  });
});
