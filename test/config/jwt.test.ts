import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/load.js';

const load = (env: NodeJS.ProcessEnv) => loadConfig({ argv: [], env, cwd: '/' });
const BASE = { A2A_BRIDGE_AUTH__JWT__ISSUER: 'https://login.example.test/', A2A_BRIDGE_AUTH__JWT__JWKS_FILE: '/etc/a2a-bridge/jwks.json' };

describe('auth.jwt from the environment', () => {
  it('takes one audience as a string and several as a JSON list', async () => {
    expect((await load({ ...BASE, A2A_BRIDGE_AUTH__JWT__AUDIENCE: 'iac-gateway' })).config.auth.jwt?.audience).toBe('iac-gateway');
    const { config } = await load({ ...BASE, A2A_BRIDGE_AUTH__JWT__AUDIENCE: '["iac-gateway","api://iac"]' });
    expect(config.auth.jwt).toMatchObject({ audience: ['iac-gateway', 'api://iac'], 'clock-tolerance-ms': 30_000, 'subject-claim': 'sub' });
  });

  it('counts as gateway auth: the start-up warning about an open bind is not given', async () => {
    const open = await load({ A2A_BRIDGE_HOST: '0.0.0.0' });
    expect(open.warnings.join('\n')).toMatch(/without auth/);
    const withJwt = await load({ ...BASE, A2A_BRIDGE_AUTH__JWT__AUDIENCE: 'iac-gateway', A2A_BRIDGE_HOST: '0.0.0.0' });
    expect(withJwt.warnings.join('\n')).not.toMatch(/without auth/);
  });

  it('a bad list is a configuration error naming the key', async () => {
    const error = await load({ ...BASE, A2A_BRIDGE_AUTH__JWT__AUDIENCE: '["unclosed' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toMatch(/A2A_BRIDGE_AUTH__JWT__AUDIENCE: expected a JSON array/);
  });
});
