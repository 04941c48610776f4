import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/config-error.js';
import { isSentinelUrl, redisUrlProblem, sentinelOptions } from '../../src/redis/url.js';

describe('Sentinel URLs', () => {
  it('read every sentinel, the master name and the database', () => {
    expect(sentinelOptions('redis+sentinel://s1:26379,s2:26380,10.0.0.3:1/mymaster/3')).toEqual({
      sentinels: [
        { host: 's1', port: 26379 },
        { host: 's2', port: 26380 },
        { host: '10.0.0.3', port: 1 },
      ],
      name: 'mymaster',
      db: 3,
    });
    expect(sentinelOptions('redis+sentinel://sentinel/m')).toEqual({ sentinels: [{ host: 'sentinel', port: 26379 }], name: 'm' });
    expect(sentinelOptions('REDIS+SENTINEL://s:1/m/')).toEqual({ sentinels: [{ host: 's', port: 1 }], name: 'm' });
    expect(sentinelOptions('redis+sentinel://[::1]:26379,[fd00::2]/my%20master').sentinels).toEqual([
      { host: '::1', port: 26379 },
      { host: 'fd00::2', port: 26379 },
    ]);
    expect(sentinelOptions('redis+sentinel://s/my%20master').name).toBe('my master');
  });

  it('give the userinfo to the data nodes and the query parameters to the sentinels', () => {
    expect(sentinelOptions('redis+sentinel://app:p%40ss:w@s:1/m')).toMatchObject({ username: 'app', password: 'p@ss:w' });
    const passwordOnly = sentinelOptions('redis+sentinel://:secret@s:1/m');
    expect(passwordOnly).toMatchObject({ password: 'secret' });
    expect(passwordOnly).not.toHaveProperty('username');
    expect(sentinelOptions('redis+sentinel://s:1/m?sentinelPassword=a+b%26c')).toEqual({
      sentinels: [{ host: 's', port: 1 }],
      name: 'm',
      sentinelPassword: 'a+b&c',
    });
    expect(sentinelOptions('redis+sentinel://:d@s:1/m?sentinelUsername=watch&sentinelPassword=x')).toMatchObject({
      password: 'd',
      sentinelUsername: 'watch',
      sentinelPassword: 'x',
    });
  });

  it('reach the data nodes over TLS with rediss+sentinel://, the sentinels as they are', () => {
    expect(sentinelOptions('rediss+sentinel://s:1/m')).toEqual({
      sentinels: [{ host: 's', port: 1 }],
      name: 'm',
      tls: {},
      enableTLSForSentinelMode: true,
    });
    expect(sentinelOptions('redis+sentinel://s:1/m')).not.toHaveProperty('tls');
  });

  it('are told apart from the URLs ioredis reads itself, which are not checked here', () => {
    for (const url of ['redis+sentinel://s/m', 'rediss+sentinel://s/m', 'Redis+Sentinel://s/m']) expect(isSentinelUrl(url)).toBe(true);
    for (const url of ['redis://127.0.0.1:6379', 'rediss://:p@h:6380/2', '/tmp/redis.sock', 'redis://h?sentinel=1']) {
      expect(isSentinelUrl(url)).toBe(false);
      expect(redisUrlProblem(url)).toBeUndefined();
    }
  });

  it('refuse what is no Redis URL at all, which ioredis would read as a host name', () => {
    for (const url of ['http://127.0.0.1:6379', '127.0.0.1:6379', 'sentinel://s/m', 'redis:/h']) {
      expect(redisUrlProblem(url), url).toMatch(/^a Redis URL starts with redis:\/\//);
    }
  });

  it('refuse a malformed one with a reason that never repeats the URL', () => {
    const refused: Array<[string, RegExp]> = [
      ['redis+sentinel:///m', /names at least one sentinel host/],
      ['redis+sentinel://:pw@/m', /names at least one sentinel host/],
      ['redis+sentinel://s1,,s2/m', /sentinel host .* missing or not a host name/],
      ['redis+sentinel://s 1/m', /sentinel host .* missing or not a host name/],
      ['redis+sentinel://::1/m', /sentinel host .* missing or not a host name/],
      ['redis+sentinel://s:0/m', /sentinel port .* not a port number/],
      ['redis+sentinel://s:65536/m', /sentinel port .* not a port number/],
      ['redis+sentinel://s:port/m', /sentinel port .* not a port number/],
      ['redis+sentinel://s:/m', /sentinel port .* not a port number/],
      ['redis+sentinel://s:26379', /names the master after the hosts/],
      ['redis+sentinel://s:26379/', /names the master after the hosts/],
      ['redis+sentinel://s:26379?sentinelPassword=x', /names the master after the hosts/],
      ['redis+sentinel://s/m/x', /database .* is not a number/],
      ['redis+sentinel://s/m/-1', /database .* is not a number/],
      ['redis+sentinel://s/m/1/2', /at most two path parts/],
      ['redis+sentinel://s/m%zz', /master name .* not valid percent-encoding/],
      ['redis+sentinel://secret@s/m', /user:password@ or :password@/],
      ['redis+sentinel://app:@s/m', /password .* is empty/],
      ['redis+sentinel://:%zzsecret@s/m', /password .* not valid percent-encoding/],
      ['redis+sentinel://s/m?password=secret', /takes only the parameters sentinelPassword and sentinelUsername/],
      ['redis+sentinel://s/m?secret', /takes only the parameters/],
      ['redis+sentinel://s/m?sentinelPassword=', /sentinelPassword is empty/],
      ['redis+sentinel://s/m?sentinelUsername=watch', /sentinelUsername .* needs sentinelPassword/],
      ['redis+sentinel://:secret@s/m#x', /no #fragment/],
    ];
    for (const [url, reason] of refused) {
      const problem = redisUrlProblem(url);
      expect(problem, url).toMatch(reason);
      expect(problem, url).not.toMatch(/secret/);
      expect(() => sentinelOptions(url), url).toThrow(ConfigError);
    }
  });
});
