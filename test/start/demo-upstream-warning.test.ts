import { describe, expect, it } from 'vitest';
import { GatewayConfig } from '../../src/config/schema.js';
import { demoUpstreamWarning } from '../../src/start/demo-upstream-warning.js';

const warningFor = (input: Record<string, unknown>) => demoUpstreamWarning(GatewayConfig.parse(input));
const advice = 'set upstream.url (--upstream, A2A_BRIDGE_UPSTREAM__URL) to the agent to bridge to';

describe('demoUpstreamWarning', () => {
  it('is silent for a local trial (loopback, nothing configured) and whenever upstream.url is set', () => {
    expect(warningFor({})).toBeUndefined();
    expect(warningFor({ host: 'localhost' })).toBeUndefined();
    expect(warningFor({ host: '0.0.0.0', upstream: { url: 'http://agent:41242' } })).toBeUndefined();
  });

  it.each([
    ['a wildcard host', { host: '0.0.0.0' }, 'it binds 0.0.0.0'],
    ['an interface address', { host: '10.0.0.5' }, 'it binds 10.0.0.5'],
    ['a public-url', { 'public-url': 'https://agents.example.com' }, 'public-url is set'],
    ['caller auth', { auth: { token: 'a-long-enough-random-token' } }, 'auth is set'],
    ['a Bailian key', { bailian: { 'api-key': 'a-long-enough-random-key' } }, 'bailian.api-key is set'],
  ])('warns, naming the setting to set, when the gateway looks deployed: %s', (_name, input, because) => {
    expect(warningFor(input)).toBe(
      `upstream.url is not set, so callers get the embedded demo agent's echoes, though this gateway looks deployed (${because}): ${advice}`,
    );
  });
});
