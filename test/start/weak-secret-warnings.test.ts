import { describe, expect, it } from 'vitest';
import { GatewayConfig } from '../../src/config/schema.js';
import { weakSecretWarnings } from '../../src/start/weak-secret-warnings.js';

const config = (input: Record<string, unknown>) => GatewayConfig.parse(input);

describe('weakSecretWarnings', () => {
  it('names each placeholder and each short secret by its setting, never by its value', () => {
    const warnings = weakSecretWarnings(
      config({
        auth: { token: 'change-me-gateway-token', tokens: ['a-long-enough-random-token', { name: 'ci', token: 'short1' }] },
        bailian: { 'api-key': 'x' },
        upstream: { url: 'http://agent:1', auth: { token: 'change-me-iac-code-token' } },
        metrics: { token: 'abc' },
      }),
    );
    expect([...warnings].sort()).toEqual(
      [
        'auth.tokens[1] is shorter than 16 characters, which is easy to guess: use a long random secret (e.g. openssl rand -hex 24)',
        'auth.token is still a placeholder (it starts with "change-me"): set the real secret',
        'upstream.auth.token is still a placeholder (it starts with "change-me"): set the real secret',
        'bailian.api-key is shorter than 16 characters, which is easy to guess: use a long random secret (e.g. openssl rand -hex 24)',
        'metrics.token is shorter than 16 characters, which is easy to guess: use a long random secret (e.g. openssl rand -hex 24)',
      ].sort(),
    );
    for (const secret of ['change-me-gateway-token', 'short1', 'abc', 'change-me-iac-code-token']) expect(warnings.join('\n')).not.toContain(secret);
  });

  it('says nothing of long random secrets, nor of a push key or PEM by its length', () => {
    expect(
      weakSecretWarnings(
        config({
          auth: { 'api-key': 'f3a9c2d1e8b7a6f5e4d3' },
          bailian: { 'api-keys': [{ name: 'bl', key: '0123456789abcdef0' }] },
          'push-keys': ['k1:AAAA'],
        }),
      ),
    ).toEqual([]);
  });

  it('a placeholder push key is still said', () => {
    expect(weakSecretWarnings(config({ 'push-keys': ['change-me:AAAA'] }))).toEqual([
      'push-keys[0] is still a placeholder (it starts with "change-me"): set the real secret',
    ]);
  });

  it("says a placeholder password in a URL (deploy/k8s/secret.yaml's REDIS_URL), by its setting, never the password", () => {
    const warnings = weakSecretWarnings(
      config({
        'redis-url': 'redis://:change-me-redis-password@a2a-gateway-redis:6379',
        'push-redis-url': 'redis+sentinel://user:Change-Me%2Dtoo@s1:26379,s2:26379/mymaster',
      }),
    );
    expect([...warnings].sort()).toEqual([
      'push-redis-url has a password that is still a placeholder (it starts with "change-me"): set the real secret',
      'redis-url has a password that is still a placeholder (it starts with "change-me"): set the real secret',
    ]);
    expect(weakSecretWarnings(config({ 'redis-url': 'redis://:f3a9c2d1e8b7a6f5e4d3@redis:6379', 'public-url': 'https://gw.example.com' }))).toEqual(
      [],
    );
  });
});
