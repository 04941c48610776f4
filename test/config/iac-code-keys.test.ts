/** The config keys of this pass's iac-code and registry features: their defaults, and what they refuse. */
import { describe, expect, it } from 'vitest';
import { configFolder } from './support.js';

const { load, configError } = configFolder();

describe('upstream.workspace-root and tasks.history-part-max-bytes', () => {
  it('default to no workspaces and a 64 KiB bound, and are read from the environment', async () => {
    expect((await load()).config.upstream['workspace-root']).toBeUndefined();
    expect((await load()).config.tasks['history-part-max-bytes']).toBe(65_536);
    const { config } = await load([], { A2A_BRIDGE_UPSTREAM__WORKSPACE_ROOT: '/workspaces', A2A_BRIDGE_TASKS__HISTORY_PART_MAX_BYTES: '0' });
    expect(config.upstream['workspace-root']).toBe('/workspaces');
    expect(config.tasks['history-part-max-bytes']).toBe(0);
  });

  it('refuse a relative workspace root and a negative bound, naming the key', async () => {
    const message = await configError([], { A2A_BRIDGE_UPSTREAM__WORKSPACE_ROOT: 'workspaces', A2A_BRIDGE_TASKS__HISTORY_PART_MAX_BYTES: '-1' });
    expect(message).toMatch(/upstream\.workspace-root: must be an absolute path/);
    expect(message).toMatch(/tasks\.history-part-max-bytes/);
  });
});

describe('upstream.caller-settings', () => {
  it('is absent by default (every key passes) and read from the environment as a JSON array, empty included', async () => {
    expect((await load()).config.upstream['caller-settings']).toBeUndefined();
    const { config } = await load([], { A2A_BRIDGE_UPSTREAM__CALLER_SETTINGS: '["alibaba_cloud_region_id", "alibaba_cloud_access_key_id"]' });
    expect(config.upstream['caller-settings']).toEqual(['alibaba_cloud_region_id', 'alibaba_cloud_access_key_id']);
    expect((await load([], { A2A_BRIDGE_UPSTREAM__CALLER_SETTINGS: '[]' })).config.upstream['caller-settings']).toEqual([]);
  });

  it('refuses an empty name and a number, naming the key', async () => {
    expect(await configError([], { A2A_BRIDGE_UPSTREAM__CALLER_SETTINGS: '[""]' })).toMatch(/upstream\.caller-settings/);
    expect(await configError([], { A2A_BRIDGE_UPSTREAM__CALLER_SETTINGS: '[1]' })).toMatch(/upstream\.caller-settings/);
  });
});
