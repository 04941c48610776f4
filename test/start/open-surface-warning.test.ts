/**
 * An operator who followed the Bailian steps alone (a facade key, public-url, the gateway behind its proxy) left
 * the 1.0 surface, on the same address, open to anyone: serve and check-config say so (configWarnings).
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { GatewayConfig } from '../../src/config/schema.js';
import { openSurfaceWarning } from '../../src/start/facade-key-warning.js';
import { configWarnings } from '../../src/start/warnings.js';

const KEY = 'facade-key-0123456789abcdef0123';
const warningFor = (input: Record<string, unknown>) => openSurfaceWarning(GatewayConfig.parse(input));

describe('openSurfaceWarning', () => {
  it.each([
    ['public-url', { 'public-url': 'https://agents.example.com' }, 'public-url is set'],
    ['an interface address', { host: '10.0.0.5' }, 'it binds 10.0.0.5'],
  ])('warns when a facade key is set, no caller auth, and others reach the gateway: %s', (_name, input, because) => {
    expect(warningFor({ ...input, bailian: { 'api-key': KEY } })).toBe(
      `bailian.api-key is set but gateway auth is not, though others reach this gateway (${because}): its A2A 1.0 surface (JSON-RPC, HTTP+JSON, gRPC if enabled, the iac-code routes) accepts calls without credentials (set auth.token, auth.api-key, auth.basic-*, the lists auth.tokens, auth.api-keys, auth.jwt or auth.introspection)`,
    );
  });

  it.each([
    ['a local trial', { bailian: { 'api-key': KEY } }],
    ['caller auth set', { 'public-url': 'https://agents.example.com', bailian: { 'api-key': KEY }, auth: { token: 'a-long-enough-random-token' } }],
    ['no facade key', { 'public-url': 'https://agents.example.com' }],
    ['the facade off', { 'public-url': 'https://agents.example.com', bailian: { enabled: false, 'api-key': KEY } }],
    // The warning of a wildcard bind without auth says it (config/load.ts): not twice.
    ['a wildcard bind', { host: '0.0.0.0', bailian: { 'api-key': KEY } }],
  ])('is silent otherwise: %s', (_name, input) => {
    expect(warningFor(input)).toBeUndefined();
  });

  it('is among what serve and check-config warn of, for the README’s Bailian steps', async () => {
    const { config } = await loadConfig({
      argv: ['serve', '--public-url', 'https://agents.example.com', '--upstream', 'http://10.0.0.5:8000'],
      env: { A2A_BRIDGE_BAILIAN__API_KEY: KEY },
      cwd: process.cwd(),
    });
    expect(configWarnings(config).join('\n')).toContain('its A2A 1.0 surface');
  });
});
