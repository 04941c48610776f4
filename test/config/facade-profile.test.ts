/**
 * A `bailian.profile` no mapping profile has is refused while the configuration is read, like any setting outside its
 * choices (`store: expected one of memory, redis (from …)`): naming where it was given. Checked only at start, the
 * message could not say so.
 */
import { describe, expect, it } from 'vitest';
import { configFolder } from './support.js';

const { load, yamlFile, configError } = configFolder();

describe('bailian.profile outside the mapping profiles', () => {
  it('is refused naming the profiles and the file it came from', async () => {
    const file = await yamlFile('bailian:\n  profile: bailain\n');
    const message = await configError(['--config', file]);
    expect(message).toBe(`invalid configuration:\n  - bailian.profile: expected one of a2a-0.2.5, bailian (from ${file})`);
  });

  it('from the environment, the variable is named', async () => {
    const message = await configError([], { A2A_BRIDGE_BAILIAN__PROFILE: 'custom' });
    expect(message).toBe('invalid configuration:\n  - bailian.profile: expected one of a2a-0.2.5, bailian (from A2A_BRIDGE_BAILIAN__PROFILE)');
  });

  it.each([
    ['a profile there is', { A2A_BRIDGE_BAILIAN__PROFILE: 'a2a-0.2.5' }],
    ['any name with the facade off, which reads none', { A2A_BRIDGE_BAILIAN__PROFILE: 'custom', A2A_BRIDGE_BAILIAN__ENABLED: 'false' }],
  ])('%s is taken', async (_name, env) => {
    await expect(load([], env)).resolves.toBeDefined();
  });
});
