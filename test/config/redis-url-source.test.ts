/**
 * A bad REDIS_URL (the conventional variable, read as redis-url when nothing else sets it) is told under
 * its own name: an operator who set only the variable would look for a redis-url setting in vain.
 */
import { describe, expect, it } from 'vitest';
import { configFolder } from './support.js';

const { configError, yamlFile } = configFolder();

describe('a problem with the Redis URL names where it came from', () => {
  it('from REDIS_URL: the line starts with REDIS_URL, says it is read as redis-url, and never repeats the password', async () => {
    const message = await configError([], { REDIS_URL: 'redis+sentinel://:hunter2@s1:26379/' });
    expect(message).toMatch(/^ {2}- REDIS_URL \(environment variable, read as redis-url\): a Sentinel URL names the master after the hosts/m);
    expect(message).not.toMatch(/^ {2}- redis-url:/m);
    expect(message).not.toContain('hunter2');
    expect(await configError([], { REDIS_URL: 'http://127.0.0.1:6379' })).toMatch(
      /^ {2}- REDIS_URL \(environment variable, read as redis-url\): a Redis URL starts with/m,
    );
  });

  it('from A2A_BRIDGE_REDIS_URL or the file: the setting, and where it came from, as for every key', async () => {
    expect(await configError([], { A2A_BRIDGE_REDIS_URL: 'http://a', REDIS_URL: 'redis://fine:6379' })).toMatch(
      /^ {2}- redis-url: a Redis URL starts with .*\(from A2A_BRIDGE_REDIS_URL\)$/m,
    );
    const file = await yamlFile('redis-url: http://a\n');
    expect(await configError(['--config', file], { REDIS_URL: 'redis://fine:6379' })).toMatch(/^ {2}- redis-url: a Redis URL starts with/m);
  });
});
