/**
 * The cap on a client's turns in flight in the configuration (`limits`): off by default, set from a
 * file or the environment, a cap per client name, and a warning for a name no credential carries.
 */
import { describe, expect, it } from 'vitest';
import { configFolder } from './support.js';

const { load, yamlFile, configError } = configFolder();

const yaml = (...lines: string[]) => yamlFile(lines.join('\n'));

describe('limits', () => {
  it('is off by default', async () => {
    const { config, warnings } = await load();
    expect(config.limits).toEqual({ 'turns-in-flight-per-client': 0, 'turns-in-flight-by-name': {} });
    expect(warnings.filter((warning) => warning.startsWith('limits.'))).toEqual([]);
  });

  it('reads the common cap and the caps by name from a file, and from the environment', async () => {
    const file = await yaml(
      'auth:',
      '  tokens: [{ name: batch, token: t-1 }, { name: bailian, token: t-2 }]',
      'limits:',
      '  turns-in-flight-per-client: 4',
      '  turns-in-flight-by-name: { batch: 1, bailian: 0 }',
    );
    expect((await load(['--config', file])).config.limits).toEqual({
      'turns-in-flight-per-client': 4,
      'turns-in-flight-by-name': { batch: 1, bailian: 0 },
    });
    const fromEnv = await load([], {
      A2A_BRIDGE_LIMITS__TURNS_IN_FLIGHT_PER_CLIENT: '3',
      A2A_BRIDGE_LIMITS__TURNS_IN_FLIGHT_BY_NAME: '{"batch":1}',
    });
    expect(fromEnv.config.limits).toEqual({ 'turns-in-flight-per-client': 3, 'turns-in-flight-by-name': { batch: 1 } });
  });

  it('refuses a negative or fractional cap, and a key that cannot be a client name', async () => {
    expect(await configError([], { A2A_BRIDGE_LIMITS__TURNS_IN_FLIGHT_PER_CLIENT: '-1' })).toContain('limits.turns-in-flight-per-client');
    expect(await configError([], { A2A_BRIDGE_LIMITS__TURNS_IN_FLIGHT_PER_CLIENT: '1.5' })).toContain('limits.turns-in-flight-per-client');
    const badName = await configError(['--config', await yaml('limits:', '  turns-in-flight-by-name: { "no spaces": 1 }')]);
    expect(badName).toContain('limits.turns-in-flight-by-name');
    expect(badName).toContain('a key is not a client name (1 to 64 letters');
  });

  it('warns of a name no credential carries, not of one a token, a key, a facade key or the Basic user carries', async () => {
    const file = await yaml(
      'auth:',
      '  tokens: [{ name: tok, token: t-1 }]',
      '  api-keys: [{ name: key, key: k-1 }]',
      '  basic-username: basic',
      '  basic-password: secret',
      'bailian:',
      '  api-keys: [{ name: facade, key: f-1 }]',
      'limits:',
      '  turns-in-flight-by-name: { tok: 1, key: 1, basic: 1, facade: 1, typo: 1 }',
    );
    const { warnings } = await load(['--config', file]);
    expect(warnings.filter((warning) => warning.startsWith('limits.'))).toEqual([
      'limits.turns-in-flight-by-name.typo: no credential is named typo, so this cap applies to no one',
    ]);
  });

  it('names from tokens cannot be known ahead: with auth.jwt no name is warned of', async () => {
    const file = await yaml(
      'auth:',
      '  jwt: { issuer: "https://login.example.test/", audience: gw, jwks-url: "https://login.example.test/keys" }',
      'limits:',
      '  turns-in-flight-by-name: { shop-frontend: 2 }',
    );
    const { warnings } = await load(['--config', file]);
    expect(warnings.filter((warning) => warning.startsWith('limits.'))).toEqual([]);
  });
});
